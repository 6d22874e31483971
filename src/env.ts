import type { D1Migration } from "cloudflare:test";
import type { McpSessions } from "./durable/mcp-sessions";
import type { RateLimiter } from "./durable/rate-limiter";

/** Bindings and secrets, as declared in wrangler.toml and .dev.vars. */
export interface Env {
  DB: D1Database;
  OAUTH_KV: KVNamespace;
  SENDS: Queue;
  REVIEW_SYNC: Queue;
  EVENTS: Queue;
  MCP_SESSIONS: DurableObjectNamespace<McpSessions>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** optional Workers AI binding: review replies are drafted with it when present (see docs/reviews.md) */
  AI?: Ai;

  ENVIRONMENT: string;
  PUBLIC_BASE_URL: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  /** where SAML sign-in redirects with ?token=; default {PUBLIC_BASE_URL}/sso/complete */
  FRONTEND_URL?: string;
  /** secret: HS256 key for session JWTs */
  JWT_SECRET?: string;
  /** secret: base64 32-byte AES-GCM key for credentials at rest */
  ENCRYPTION_KEY?: string;
  /** secret: when set, POST /bootstrap requires a matching x-bootstrap-secret header */
  BOOTSTRAP_SECRET?: string;

  /** test pool only */
  TEST_MIGRATIONS?: D1Migration[];
}

type ServiceBindings = Env;

declare global {
  namespace Cloudflare {
    // lets `env` from cloudflare:workers (tests) carry these bindings
    interface Env extends ServiceBindings {}
  }
}

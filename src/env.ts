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

  ENVIRONMENT: string;
  PUBLIC_BASE_URL: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  /** secret: HS256 key for session JWTs */
  JWT_SECRET?: string;
  /** secret: base64 32-byte AES-GCM key for credentials at rest */
  ENCRYPTION_KEY?: string;
  /** secret: when set, POST /bootstrap requires a matching x-bootstrap-secret header */
  BOOTSTRAP_SECRET?: string;

  /** comma-separated extra origins allowed to call /mcp from a browser (same origin always is) */
  MCP_ALLOWED_ORIGINS?: string;
  /** overrides of the MCP limits (defaults: 1000 requests / 900 s, 25 sessions, 1800 s idle, 60 s, 10 MB) */
  MCP_RATE_LIMIT?: string;
  MCP_RATE_WINDOW_SECONDS?: string;
  MCP_MAX_SESSIONS?: string;
  MCP_SESSION_IDLE_SECONDS?: string;
  MCP_TOOL_TIMEOUT_MS?: string;
  MCP_MAX_RESULT_BYTES?: string;

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

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
  /** outbound webhook deliveries (docs/automation.md) */
  WEBHOOKS: Queue;
  /** background tenant jobs, e.g. CRM contact imports (docs/automation.md) */
  JOBS: Queue;
  /** short-link clicks, buffered per isolate and written to D1 in batches by its consumer (docs/links.md) */
  CLICKS?: Queue;
  MCP_SESSIONS: DurableObjectNamespace<McpSessions>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** optional Workers AI binding: when present the agents, the assistant and reply drafting use the llm engine (docs/ai.md) */
  AI?: Ai;

  ENVIRONMENT: string;
  /** a rollup cell is rebuilt at most once per this many seconds (default 10; 0: on every event batch) */
  ROLLUP_REBUILD_SECONDS?: string;
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

  // Platform messaging providers (fallback for tenants with fallbackToPlatform, and platform mail).
  // Names and meaning: docs/messaging.md. Secrets are set with `wrangler secret put`.
  PLATFORM_EMAIL_PROVIDER?: string;
  PLATFORM_EMAIL_FROM_ADDRESS?: string;
  PLATFORM_EMAIL_FROM_NAME?: string;
  PLATFORM_EMAIL_REPLY_TO?: string;
  PLATFORM_SENDGRID_API_KEY?: string;
  PLATFORM_SENDGRID_WEBHOOK_PUBLIC_KEY?: string;
  PLATFORM_SES_REGION?: string;
  PLATFORM_SES_ACCESS_KEY_ID?: string;
  PLATFORM_SES_SECRET_ACCESS_KEY?: string;
  PLATFORM_SES_CONFIGURATION_SET?: string;
  /** the SNS topic SES publishes the platform's bounces/complaints/deliveries to */
  PLATFORM_SES_SNS_TOPIC_ARN?: string;
  PLATFORM_ACS_ENDPOINT?: string;
  PLATFORM_ACS_ACCESS_KEY?: string;
  PLATFORM_ACS_WEBHOOK_SECRET?: string;
  PLATFORM_SMTP_HOST?: string;
  PLATFORM_SMTP_PORT?: string;
  PLATFORM_SMTP_SECURITY?: string;
  PLATFORM_SMTP_USERNAME?: string;
  PLATFORM_SMTP_PASSWORD?: string;
  PLATFORM_SMS_PROVIDER?: string;
  PLATFORM_SMS_FROM_NUMBER?: string;
  PLATFORM_TWILIO_ACCOUNT_SID?: string;
  PLATFORM_TWILIO_AUTH_TOKEN?: string;
  PLATFORM_TWILIO_MESSAGING_SERVICE_SID?: string;
  PLATFORM_WHATSAPP_PROVIDER?: string;
  /** Meta: the phone number id; Twilio: the WhatsApp sender number (E.164) */
  PLATFORM_WHATSAPP_SENDER?: string;
  PLATFORM_META_ACCESS_TOKEN?: string;
  PLATFORM_META_APP_SECRET?: string;
  PLATFORM_META_VERIFY_TOKEN?: string;
  PLATFORM_META_API_VERSION?: string;
  /** DNS-over-HTTPS JSON endpoint for verify-domain (default https://cloudflare-dns.com/dns-query) */
  DOH_URL?: string;
  /** comma-separated extra origins allowed to call /mcp from a browser (same origin always is) */
  MCP_ALLOWED_ORIGINS?: string;
  /** overrides of the MCP limits (defaults: 1000 requests / 900 s, 25 sessions, 1800 s idle, 60 s, 10 MB) */
  MCP_RATE_LIMIT?: string;
  MCP_RATE_WINDOW_SECONDS?: string;
  MCP_MAX_SESSIONS?: string;
  MCP_SESSION_IDLE_SECONDS?: string;
  MCP_TOOL_TIMEOUT_MS?: string;
  MCP_MAX_RESULT_BYTES?: string;

  /** Workers AI model of the llm engine (default @cf/meta/llama-3.3-70b-instruct-fp8-fast, docs/ai.md) */
  AI_MODEL?: string;
  /** override of the 60 s agent timeout, in milliseconds (tests) */
  AGENT_TIMEOUT_MS?: string;

  /** secret: Cloudflare API token (SSL and Certificates: Edit on the SaaS zone) for custom hostnames (docs/white-label.md) */
  CLOUDFLARE_API_TOKEN?: string;
  /** the Cloudflare for SaaS zone custom hostnames are created in */
  CLOUDFLARE_ZONE_ID?: string;
  /** default https://api.cloudflare.com/client/v4; a local stand-in in dev */
  CLOUDFLARE_API_BASE_URL?: string;
  /** the CNAME target customers point their hostname at (the zone's fallback origin), shown with each hostname */
  CUSTOM_HOSTNAME_CNAME_TARGET?: string;

  /** dev/test only: "true" lets webhooks use http and loopback hosts (never private networks) */
  ALLOW_INSECURE_WEBHOOKS?: string;

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

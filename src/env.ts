import { z } from "zod";
import type { McpSessions } from "./durable/mcp-sessions";
import type { ProviderQuota } from "./durable/provider-quota";
import type { RateLimiter } from "./durable/rate-limiter";
import { decodeKey } from "./lib/base64";

/**
 * The Worker's environment is declared once, in two halves:
 * - bindings (D1, KV, Queues, Durable Objects, AI, email) in `Bindings`, typed by the runtime's own types; the
 *   start-up check of each one is in `bindingChecks`, which must name exactly the same keys, optional alike
 *   (checked at compile time below);
 * - vars and secrets (strings) in `varsSchema`: the zod schema is the declaration and `Env` infers their types.
 * A new variable is one line in `varsSchema`; a new binding is one line in `Bindings` and one in `bindingChecks`.
 */
interface Bindings {
  /** the control plane: agencies, the tenant directory, users, grants, keys, OAuth/SSO settings (docs/scaling.md) */
  DB: D1Database;
  /** tenant shards SHARD_0..SHARD_15, consecutive (src/db/shards.ts); none declared: the control database is the
   * only shard. Those above SHARD_3 are reached by name (src/db/shards.ts) and not checked at start-up. */
  SHARD_0?: D1Database;
  SHARD_1?: D1Database;
  SHARD_2?: D1Database;
  SHARD_3?: D1Database;
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
  /** providers' quotas, one instance per provider account, shared by every isolate (docs/reviews.md) */
  PROVIDER_QUOTA: DurableObjectNamespace<ProviderQuota>;
  /** Cloudflare Email Sending (`[[send_email]]` in wrangler.toml): the `cloudflare` email provider (docs/messaging.md) */
  EMAIL?: SendEmail;
  /** optional Workers AI binding: when present the agents, the assistant and reply drafting use the llm engine
   * (docs/ai.md) */
  AI?: Ai;
}

/** Test pool only: migrations/tenant and migrations/control, applied by test/setup/apply-migrations.ts. */
interface TestBindings {
  TEST_MIGRATIONS_TENANT?: { name: string; queries: string[] }[];
  TEST_MIGRATIONS_CONTROL?: { name: string; queries: string[] }[];
  /** ENCRYPTION_KEY values made as users make them, per run (vitest.config.mts; test/lib/encryption-key.test.ts) */
  TEST_KEY_SAMPLES?: { source: string; key: string }[];
  /** a second JWT_SECRET made per run, for the rotation test (test/lib/key-rotation.test.ts) */
  TEST_ROTATED_JWT_SECRET?: string;
}

/** A binding is an object with the method the service calls on it (the runtime gives proxies, tests give fakes). */
const binding = (kind: string, method: string) =>
  z.custom<object>(
    (v) => typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[method] === "function",
    { message: `must be a ${kind} binding (wrangler.toml)` },
  );
const text = z.string().trim().min(1, "must not be empty");
const seconds = z.string().regex(/^\d+$/, "must be a whole number");
const positiveNumber = z.string().regex(/^\d+(\.\d+)?$/, "must be a positive number");
const wholeAboveZero = z.string().regex(/^[1-9]\d*$/, "must be a whole number > 0");
const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });
/** a setting whose meaning is checked where it is used (e.g. the platform providers, docs/messaging.md) */
const setting = z.string().optional();
/** read by the same decoder as the code that uses the key (src/lib/crypto.ts): either alphabet, padded or not */
const base64Key32 = z
  .string()
  .refine((v) => decodeKey(v, 32) !== null, "must be 32 bytes, base64 (e.g. openssl rand -base64 32)");

const bindingChecks = {
  DB: binding("D1", "prepare"),
  SHARD_0: binding("D1", "prepare").optional(),
  SHARD_1: binding("D1", "prepare").optional(),
  SHARD_2: binding("D1", "prepare").optional(),
  SHARD_3: binding("D1", "prepare").optional(),
  OAUTH_KV: binding("KV", "get"),
  SENDS: binding("queue producer", "send"),
  REVIEW_SYNC: binding("queue producer", "send"),
  EVENTS: binding("queue producer", "send"),
  WEBHOOKS: binding("queue producer", "send"),
  JOBS: binding("queue producer", "send"),
  CLICKS: binding("queue producer", "send").optional(),
  MCP_SESSIONS: binding("Durable Object namespace", "idFromName"),
  RATE_LIMITER: binding("Durable Object namespace", "idFromName"),
  PROVIDER_QUOTA: binding("Durable Object namespace", "idFromName"),
  AI: binding("Workers AI", "run").optional(),
  EMAIL: binding("send_email", "send").optional(),
} satisfies { [K in keyof Bindings]-?: z.ZodType };

/** Vars ([vars] in wrangler.toml) and secrets (`wrangler secret put`, .dev.vars): declared here only. */
const varsSchema = z.object({
  /** "development" (local), "test", "staging" or "production"; deployed ones disable dev-only stand-ins */
  ENVIRONMENT: text,
  PUBLIC_BASE_URL: httpUrl,
  JWT_ISSUER: text,
  JWT_AUDIENCE: text,
  /** a frontend of your own SAML sign-in redirects to with ?token=; default: the built-in console ({PUBLIC_BASE_URL}/sso/complete?code=, docs/saml.md) */
  FRONTEND_URL: httpUrl.optional(),
  /** secret: HS256 key for session JWTs (the Worker refuses to serve without it) */
  JWT_SECRET: z.string({ message: "is not set" }).min(32, "must be at least 32 characters"),
  /** secret: base64 32-byte AES-GCM key for credentials at rest */
  ENCRYPTION_KEY: base64Key32.optional(),
  /** secret: when set, POST /bootstrap requires a matching x-bootstrap-secret header */
  BOOTSTRAP_SECRET: text.optional(),
  /** secret, during a rotation only: the JWT_SECRET being replaced; tokens it signed still verify (docs/deploy.md) */
  JWT_SECRET_PREVIOUS: z.string().min(32, "must be at least 32 characters").optional(),
  /** secret, during a rotation only: the ENCRYPTION_KEY being replaced; what it sealed still opens (docs/deploy.md) */
  ENCRYPTION_KEY_PREVIOUS: base64Key32.optional(),
  /** deployed environments name their queues "<worker>-<queue>" (queue names are per account); consumers strip it */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9-]*$/, "must be lower-case letters, digits and dashes")
    .optional(),

  /** a rollup cell is rebuilt at most once per this many seconds (default 10; 0: on every event batch) */
  ROLLUP_REBUILD_SECONDS: seconds.optional(),
  /** tenant moves (docs/scaling.md): rows per chunk (500), chunks per queue message (40, and at most 10 s),
   * seconds waited for other isolates' caches after fencing and after the flip (10) */
  TENANT_MOVE_CHUNK_ROWS: wholeAboveZero.optional(),
  TENANT_MOVE_SLICE_CHUNKS: wholeAboveZero.optional(),
  TENANT_MOVE_SETTLE_SECONDS: seconds.optional(),
  /** comma-separated extra origins allowed to call /mcp from a browser (same origin always is) */
  MCP_ALLOWED_ORIGINS: setting,
  /** overrides of the MCP limits (defaults: 1000 requests / 900 s, 25 sessions, 1800 s idle, 60 s, 10 MB) */
  MCP_RATE_LIMIT: positiveNumber.optional(),
  MCP_RATE_WINDOW_SECONDS: positiveNumber.optional(),
  MCP_MAX_SESSIONS: positiveNumber.optional(),
  MCP_SESSION_IDLE_SECONDS: positiveNumber.optional(),
  MCP_TOOL_TIMEOUT_MS: positiveNumber.optional(),
  MCP_MAX_RESULT_BYTES: positiveNumber.optional(),
  /** how long a 2025-11-25 tool call waits for the user's answer to elicitation/create (default 300000 ms) */
  MCP_ELICITATION_TIMEOUT_MS: positiveNumber.optional(),
  /** Workers AI model of the llm engine (default @cf/meta/llama-3.3-70b-instruct-fp8-fast, docs/ai.md) */
  AI_MODEL: setting,
  /** override of the 60 s agent timeout, in milliseconds (tests) */
  AGENT_TIMEOUT_MS: positiveNumber.optional(),
  /** DNS-over-HTTPS JSON endpoint for verify-domain (default https://cloudflare-dns.com/dns-query) */
  DOH_URL: httpUrl.optional(),
  /** dev/test only: "true" lets webhooks use http and loopback hosts (never private networks); ignored when deployed */
  ALLOW_INSECURE_WEBHOOKS: z.enum(["true", "false"]).optional(),
  /** secret: Cloudflare API token (SSL and Certificates: Edit on the SaaS zone) for custom hostnames
   * (docs/white-label.md) */
  CLOUDFLARE_API_TOKEN: text.optional(),
  /** the Cloudflare for SaaS zone custom hostnames are created in */
  CLOUDFLARE_ZONE_ID: text.optional(),
  /** default https://api.cloudflare.com/client/v4; a local stand-in in dev */
  CLOUDFLARE_API_BASE_URL: httpUrl.optional(),
  /** the CNAME target customers point their hostname at (the zone's fallback origin), shown with each hostname */
  CUSTOM_HOSTNAME_CNAME_TARGET: text.optional(),

  // Platform messaging providers (fallback for tenants with fallbackToPlatform, and platform mail).
  // Names and meaning: docs/messaging.md; checked where they are used. Secrets: `wrangler secret put`.
  PLATFORM_EMAIL_PROVIDER: setting,
  PLATFORM_EMAIL_FROM_ADDRESS: setting,
  PLATFORM_EMAIL_FROM_NAME: setting,
  PLATFORM_EMAIL_REPLY_TO: setting,
  PLATFORM_SENDGRID_API_KEY: setting,
  PLATFORM_SENDGRID_WEBHOOK_PUBLIC_KEY: setting,
  PLATFORM_SES_REGION: setting,
  PLATFORM_SES_ACCESS_KEY_ID: setting,
  PLATFORM_SES_SECRET_ACCESS_KEY: setting,
  PLATFORM_SES_CONFIGURATION_SET: setting,
  /** the SNS topic SES publishes the platform's bounces/complaints/deliveries to */
  PLATFORM_SES_SNS_TOPIC_ARN: setting,
  PLATFORM_ACS_ENDPOINT: setting,
  PLATFORM_ACS_ACCESS_KEY: setting,
  PLATFORM_ACS_WEBHOOK_SECRET: setting,
  PLATFORM_SMTP_HOST: setting,
  PLATFORM_SMTP_PORT: setting,
  PLATFORM_SMTP_SECURITY: setting,
  PLATFORM_SMTP_USERNAME: setting,
  PLATFORM_SMTP_PASSWORD: setting,
  PLATFORM_SMS_PROVIDER: setting,
  PLATFORM_SMS_FROM_NUMBER: setting,
  PLATFORM_TWILIO_ACCOUNT_SID: setting,
  PLATFORM_TWILIO_AUTH_TOKEN: setting,
  PLATFORM_TWILIO_MESSAGING_SERVICE_SID: setting,
  PLATFORM_WHATSAPP_PROVIDER: setting,
  /** Meta: the phone number id; Twilio: the WhatsApp sender number (E.164) */
  PLATFORM_WHATSAPP_SENDER: setting,
  PLATFORM_META_ACCESS_TOKEN: setting,
  PLATFORM_META_APP_SECRET: setting,
  PLATFORM_META_VERIFY_TOKEN: setting,
  PLATFORM_META_API_VERSION: setting,
});

/** Bindings and secrets, as declared in wrangler.toml and .dev.vars (one declaration each, above). */
export type Env = Bindings & z.infer<typeof varsSchema> & TestBindings;

// compile-time check: a binding is optional in `Bindings` exactly when its start-up check is optional
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const bindingsAgree: Same<OptionalKeys<Bindings>, OptionalKeys<z.input<z.ZodObject<typeof bindingChecks>>>> = true;
void bindingsAgree;

type ServiceBindings = Env;

declare global {
  namespace Cloudflare {
    // lets `env` from cloudflare:workers (tests) carry these bindings
    interface Env extends ServiceBindings {}
  }
}

/**
 * The whole environment the Worker needs, checked once per env object by every entry point
 * (src/worker.ts): bindings (wrangler.toml), vars ([vars]) and secrets (`wrangler secret put`,
 * .dev.vars). Optional platform-provider settings are checked where they are used (docs/messaging.md).
 */
export const envSchema = z.looseObject({ ...bindingChecks, ...varsSchema.shape });

const checked = new WeakMap<object, string | null>();

/** null when the environment is complete, else one line naming every missing or malformed entry. */
export function misconfiguration(env: Env): string | null {
  const known = checked.get(env);
  if (known !== undefined) return known;
  const result = envSchema.safeParse(env);
  const problem = result.success ? null : result.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ");
  checked.set(env, problem);
  return problem;
}

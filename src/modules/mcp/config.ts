import type { Env } from "../../env";
import { baseUrl } from "../../lib/urls";

/** Revisions served statelessly (no initialize, no session; per-request _meta). */
export const STATELESS_PROTOCOL_VERSIONS = ["2026-07-28"] as const;
/** Revisions served with initialize and a session; initialize answers the client's if listed, else the newest. */
export const SESSION_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const LATEST_SESSION_VERSION = SESSION_PROTOCOL_VERSIONS[0];
/** Every revision /mcp speaks, newest first. */
export const PROTOCOL_VERSIONS = [...STATELESS_PROTOCOL_VERSIONS, ...SESSION_PROTOCOL_VERSIONS] as const;

/** The audit session id of a 2026-07-28 request is this prefix and the request id (there is no session). */
export const STATELESS_SESSION_PREFIX = "stateless:";

export const SERVER_INFO = { name: "reputation-ops", title: "Reputation Operations", version: "2.0.0" };

export interface McpLimits {
  /** requests per window, per tenant (or per IP before authentication) */
  rateLimit: number;
  windowSeconds: number;
  maxSessions: number;
  idleTtlMs: number;
  toolTimeoutMs: number;
  maxResultBytes: number;
  /** how long a tool call on a 2025-xx session waits for the user's answer to elicitation/create */
  elicitationTimeoutMs: number;
}

export const DEFAULT_LIMITS: McpLimits = {
  rateLimit: 1000,
  windowSeconds: 15 * 60,
  maxSessions: 25,
  idleTtlMs: 30 * 60 * 1000,
  toolTimeoutMs: 60_000,
  maxResultBytes: 10 * 1024 * 1024,
  // well inside the 10-minute life of the confirmation it answers (confirmations.ts)
  elicitationTimeoutMs: 5 * 60_000,
};

const positive = (raw: string | undefined, fallback: number) => {
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/** The limits, each overridable by an optional var (tests lower them; production keeps the defaults). */
export const mcpLimits = (env: Env): McpLimits => ({
  rateLimit: positive(env.MCP_RATE_LIMIT, DEFAULT_LIMITS.rateLimit),
  windowSeconds: positive(env.MCP_RATE_WINDOW_SECONDS, DEFAULT_LIMITS.windowSeconds),
  maxSessions: positive(env.MCP_MAX_SESSIONS, DEFAULT_LIMITS.maxSessions),
  idleTtlMs: positive(env.MCP_SESSION_IDLE_SECONDS, DEFAULT_LIMITS.idleTtlMs / 1000) * 1000,
  toolTimeoutMs: positive(env.MCP_TOOL_TIMEOUT_MS, DEFAULT_LIMITS.toolTimeoutMs),
  maxResultBytes: positive(env.MCP_MAX_RESULT_BYTES, DEFAULT_LIMITS.maxResultBytes),
  elicitationTimeoutMs: positive(env.MCP_ELICITATION_TIMEOUT_MS, DEFAULT_LIMITS.elicitationTimeoutMs),
});

/** Same origin as PUBLIC_BASE_URL, or one listed in MCP_ALLOWED_ORIGINS (comma separated). */
export function originAllowed(origin: string, env: Env): boolean {
  const own = new URL(baseUrl(env)).origin;
  if (origin === own) return true;
  const extra = (env.MCP_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((s) => s.trim().replace(/\/+$/, ""))
    .filter(Boolean);
  return extra.includes(origin);
}

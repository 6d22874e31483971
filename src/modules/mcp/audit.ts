import type { Db } from "../../db/client";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import type { Actor, RequestMeta } from "../../lib/context";
import { hmacBase64Url, purposeKey } from "../../lib/crypto";
import { inputShape } from "../../lib/input-shape";
import { STATELESS_SESSION_PREFIX } from "./config";
import type { SessionIdentity } from "./identity";

export type ToolOutcome =
  | "success"
  | "error"
  | "invalid_input"
  | "forbidden"
  | "timeout"
  | "too_large"
  | "throttled"
  | "confirmation_requested"
  | "not_confirmed";

export function actorFor(identity: SessionIdentity): Actor {
  if (identity.credential === "api_key") return { type: "api_key", keyId: identity.keyId! };
  return {
    type: "user",
    userId: identity.userId!,
    via: identity.agencySession ? "agency" : "tenant",
    ...(identity.clientId ? { oauthClientId: identity.clientId } : {}),
  };
}

export interface ToolCallRecord {
  tool: string;
  tenantId: string;
  /** the MCP session (2025-xx), or the stateless marker; only its keyed reference is written */
  sessionId: string;
  input: unknown;
  outcome: ToolOutcome;
  error?: string;
  durationMs?: number;
}

/**
 * What ties the calls of one session together in the audit log: a keyed hash of the session id, 128
 * bits, never the id itself (a tenant_admin reads these rows at GET /v1/audit-events). Null on the
 * stateless leg (no session; the row's requestId names the request).
 */
export async function sessionRef(env: Env, sessionId: string): Promise<string | null> {
  if (sessionId.startsWith(STATELESS_SESSION_PREFIX) || !env.JWT_SECRET) return null;
  const mac = await hmacBase64Url(await purposeKey(env.JWT_SECRET, "mcp-audit-session"), sessionId);
  return mac.slice(0, 22);
}

/** One AuditEvent per tool call, whatever the outcome (throttled and refused calls included). */
export async function auditToolCall(
  db: Db,
  env: Env,
  identity: SessionIdentity,
  meta: RequestMeta,
  call: ToolCallRecord,
): Promise<void> {
  const ref = await sessionRef(env, call.sessionId);
  await auditStatement(
    { db, actor: actorFor(identity), meta },
    {
      tenantId: call.tenantId,
      action: "mcp.tool_called",
      resourceType: "mcp_tool",
      resourceId: call.tool,
      metadata: {
        channel: "mcp",
        credential: identity.credential,
        ...(identity.keyId ? { apiKeyId: identity.keyId } : {}),
        ...(identity.userId ? { userId: identity.userId } : {}),
        ...(identity.clientId ? { oauthClientId: identity.clientId } : {}),
        ...(ref ? { sessionRef: ref } : {}),
        tool: call.tool,
        inputShape: inputShape(call.input),
        outcome: call.outcome,
        ...(call.error ? { error: call.error } : {}),
        ...(call.durationMs !== undefined ? { durationMs: call.durationMs } : {}),
      },
    },
  );
}

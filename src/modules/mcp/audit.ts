import type { Db } from "../../db/client";
import { auditStatement } from "../../lib/audit";
import type { Actor, RequestMeta } from "../../lib/context";
import type { SessionIdentity } from "./identity";

export type ToolOutcome = "success" | "error" | "invalid_input" | "forbidden" | "timeout" | "too_large" | "throttled" | "confirmation_requested" | "not_confirmed";

const SECRET_KEY = /secret|password|token|api[-_]?key|authorization|credential/i;

/** The shape of a tool's input: keys and value types, never the values (so nothing secret is kept). */
export function inputShape(input: unknown, depth = 0): unknown {
  if (input === null) return "null";
  if (Array.isArray(input)) return depth > 2 ? "array" : `array(${input.length})`;
  if (typeof input === "string") return `string(${input.length})`;
  if (typeof input !== "object") return typeof input;
  if (depth > 2) return "object";
  return Object.fromEntries(
    Object.entries(input as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEY.test(k) ? "[redacted]" : inputShape(v, depth + 1)]),
  );
}

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
  sessionId: string;
  input: unknown;
  outcome: ToolOutcome;
  error?: string;
  durationMs?: number;
}

/** One AuditEvent per tool call, whatever the outcome (throttled and refused calls included). */
export async function auditToolCall(db: Db, identity: SessionIdentity, meta: RequestMeta, call: ToolCallRecord): Promise<void> {
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
        sessionId: call.sessionId,
        tool: call.tool,
        inputShape: inputShape(call.input),
        outcome: call.outcome,
        ...(call.error ? { error: call.error } : {}),
        ...(call.durationMs !== undefined ? { durationMs: call.durationMs } : {}),
      },
    },
  );
}

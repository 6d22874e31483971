import type { Db } from "../../db/client";
import { auditStatement } from "../../lib/audit";
import type { Actor, RequestMeta } from "../../lib/context";
import { inputShape } from "../../lib/input-shape";
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
  sessionId: string;
  input: unknown;
  outcome: ToolOutcome;
  error?: string;
  durationMs?: number;
}

/** One AuditEvent per tool call, whatever the outcome (throttled and refused calls included). */
export async function auditToolCall(
  db: Db,
  identity: SessionIdentity,
  meta: RequestMeta,
  call: ToolCallRecord,
): Promise<void> {
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

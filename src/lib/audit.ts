import type { Db } from "../db/client";
import { auditEvents } from "../db/schema";
import type { Actor, RequestMeta } from "./context";
import { newId } from "./ids";
import { nowIso } from "./time";

export interface AuditInput {
  tenantId: string | null;
  action: string;
  resourceType: string;
  resourceId: string;
  previousState?: unknown;
  nextState?: unknown;
  metadata?: Record<string, unknown>;
}

interface AuditSource {
  db: Db;
  actor: Actor;
  meta: RequestMeta;
}

const actorColumns = (actor: Actor) => {
  switch (actor.type) {
    case "user":
      return {
        actorId: actor.userId,
        actorType: actor.via === "platform" ? "platform_admin" : "user",
        extra: { via: actor.via, ...(actor.oauthClientId ? { oauthClientId: actor.oauthClientId } : {}) },
      } as const;
    case "api_key":
      return { actorId: actor.keyId, actorType: "system", extra: { credential: "api_key" } } as const;
    case "system":
      return { actorId: null, actorType: "system", extra: { job: actor.name } } as const;
  }
};

/**
 * The insert statement for one AuditEvent. It is returned, not run: callers put it in the same
 * db.batch as the change it records, so the change and its audit row commit together.
 */
export function auditStatement(src: AuditSource, input: AuditInput) {
  const { actorId, actorType, extra } = actorColumns(src.actor);
  return src.db.insert(auditEvents).values({
    id: newId(),
    tenantId: input.tenantId,
    actorId,
    actorType,
    action: input.action,
    resourceType: input.resourceType,
    resourceId: input.resourceId,
    previousState: input.previousState ?? null,
    nextState: input.nextState ?? null,
    metadata: { ...extra, ...(src.meta.requestId ? { requestId: src.meta.requestId } : {}), ...input.metadata },
    ipAddress: src.meta.ip,
    userAgent: src.meta.userAgent,
    occurredAt: nowIso(),
  });
}

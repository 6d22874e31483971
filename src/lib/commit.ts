import type { BatchItem } from "drizzle-orm/batch";
import type { ControlDb, Db } from "../db/client";
import { controlDb, tenantDb } from "../db/shards";
import type { Env } from "../env";
import type { ServiceContext } from "./context";
import { type EventEnvelope, enqueueEvents } from "./events";
import { log } from "./log";

export interface PendingEvent {
  event: EventEnvelope;
  statement: BatchItem<"sqlite">;
}

/**
 * Runs the statements of one change (with its audit rows and outbox events) as one atomic
 * D1 batch, then hands the events to the EVENTS queue without holding up the caller.
 */
export async function commit(
  ctx: { db: Db } & Pick<ServiceContext, "env" | "defer">,
  statements: BatchItem<"sqlite">[],
  events: PendingEvent[] = [],
): Promise<void> {
  const all = [...statements, ...events.map((e) => e.statement)];
  if (all.length === 0) return;
  await ctx.db.batch(all as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  handOffEvents(
    ctx,
    events.map((e) => e.event),
  );
}

/** Sends events just committed to the EVENTS queue after the response (waitUntil); the consumer marks them dispatched. */
export function handOffEvents(ctx: Pick<ServiceContext, "env" | "defer">, events: EventEnvelope[]): void {
  if (!events.length) return;
  ctx.defer(
    enqueueEvents(ctx.env, events).catch((err) =>
      // the stale-event sweep sends them later; nothing is lost
      log.warn("event dispatch deferred to sweep", { error: String(err) }),
    ),
  );
}

/**
 * A change to control-plane rows (users, grants, API keys, SSO settings, white-label brands and
 * hostnames: docs/scaling.md) with the tenant's audit rows and events, which live on the tenant's
 * shard (`ctx.db`): D1 has no batch across databases, so the control rows commit first, then the
 * tenant's statements. A failure between the two leaves the change without its audit row (never
 * an audit row without its change). When `ctx.db` is the control database itself (a change no
 * tenant owns, e.g. an agency's brand) everything is one batch.
 */
export async function commitControl(
  ctx: { db: Db } & Pick<ServiceContext, "env" | "control" | "defer">,
  controlStatements: (control: ControlDb) => BatchItem<"sqlite">[],
  tenantStatements: BatchItem<"sqlite">[],
  events: PendingEvent[] = [],
): Promise<void> {
  const control = ctx.control;
  const own = controlStatements(control);
  if (ctx.db === control) return commit(ctx, [...own, ...tenantStatements], events);
  if (own.length) await control.batch(own as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  await commit(ctx, tenantStatements, events);
}

/**
 * Where the audit rows of a control-plane change made outside /v1 go: the tenant's shard (so the
 * tenant's `GET /v1/audit-events` shows them), or the control database for a change no tenant owns.
 */
export const auditDbFor = async (env: Env, tenantId: string | null): Promise<Db> =>
  tenantId ? tenantDb(env, tenantId) : controlDb(env);

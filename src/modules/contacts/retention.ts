import { and, eq, lt } from "drizzle-orm";
import type { Db, ShardDb } from "../../db/client";
import { contacts, tenants } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { hooks } from "../../hooks";
import { auditStatement } from "../../lib/audit";
import { groupMap } from "../../lib/collections";
import { commit } from "../../lib/commit";
import { type ServiceContext, SYSTEM_META } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { retentionCutoff } from "../compliance/personal-data";
import { anonymizeStatements } from "./privacy";

export const RETENTION_BATCH = 100;
/** per run and per kind; the daily run picks up where the last one stopped */
export const RETENTION_MAX_BATCHES = 50;

/**
 * Contacts past their tenant's retention. CROSS JOIN pins tenants as the outer loop (SQLite never
 * reorders it), so each tenant costs one range seek on (tenant_id, last_activity_at), not a scan.
 */
export const dueContacts = (db: Db, now: string) =>
  db
    .select({ id: contacts.id, tenantId: contacts.tenantId })
    .from(tenants)
    .crossJoin(contacts)
    .where(and(eq(contacts.tenantId, tenants.id), lt(contacts.lastActivityAt, retentionCutoff(tenants.id, now))))
    .limit(RETENTION_BATCH);

const ACTOR = { type: "system", name: "retention" } as const;

/**
 * The daily retention sweep: anonymises contacts whose last activity is older than their tenant's
 * retentionDays, then lets every registered kind expire its own old rows. Bounded batches; a row
 * once handled no longer matches, so reruns and overlapping runs do no harm.
 */
export async function runRetentionSweep(
  env: Env,
  db: ShardDb,
  at: Date,
): Promise<{ anonymized: number; expired: number }> {
  const now = nowIso(at);
  const system = {
    db,
    control: controlDb(env),
    env,
    actor: ACTOR,
    meta: SYSTEM_META,
    defer: (p: Promise<unknown>) => p,
  };
  let anonymized = 0;
  for (let batch = 0; batch < RETENTION_MAX_BATCHES; batch++) {
    const due = await dueContacts(db, now);
    const byTenant = groupMap(
      due,
      (d) => d.tenantId,
      (d) => d.id,
    );
    for (const [tenantId, ids] of byTenant) {
      const ctx: ServiceContext = { ...system, tenantId };
      await commit(ctx, [
        ...anonymizeStatements(ctx, ids, now, "retention"),
        auditStatement(ctx, {
          tenantId,
          action: "contact.retention_anonymized",
          resourceType: "tenant",
          resourceId: tenantId,
          nextState: { contactIds: ids, sweptAt: now },
        }),
      ]);
    }
    anonymized += due.length;
    if (due.length < RETENTION_BATCH) break;
  }
  let expired = 0;
  for (const step of hooks().personalData) {
    if (!step.expire) continue;
    for (let batch = 0; batch < RETENTION_MAX_BATCHES; batch++) {
      const n = await step.expire(system, now, RETENTION_BATCH);
      expired += n;
      if (n < RETENTION_BATCH) break;
    }
  }
  return { anonymized, expired };
}

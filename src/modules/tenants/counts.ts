import { and, count, countDistinct, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { contactCounts, integrations, roleAssignments, solicitations } from "../../db/schema";
import { controlDb, shardDb } from "../../db/shards";
import type { Env } from "../../env";
import { groupMap } from "../../lib/collections";
import { inJson } from "../../lib/sql";

export const TENANT_COUNT_KEYS = ["users", "contacts", "solicitations", "integrations"] as const;
export type TenantCountKey = (typeof TENANT_COUNT_KEYS)[number];
export type TenantCounts = Record<TenantCountKey, number>;

type CountQuery = BatchItem<"sqlite"> & PromiseLike<{ tenantId: string; n: number }[]>;
type Counter = (db: Db, tenantIds: string[]) => CountQuery;

/** Rows per tenant of a table with a tenant_id column: `contacts: countRowsOf(contacts.tenantId)`. */
export const countRowsOf =
  (tenantIdColumn: SQLiteColumn): Counter =>
  (db, ids) =>
    db
      .select({ tenantId: tenantIdColumn, n: count() })
      .from(tenantIdColumn.table)
      .where(inJson(tenantIdColumn, ids))
      .groupBy(tenantIdColumn) as unknown as CountQuery;

/** How each _count is computed; `users` reads the control database, the others the tenant's shard. */
const COUNTERS: Record<TenantCountKey, Counter> = {
  /** kept exact by triggers (migrations/tenant/0001_house_agency_contact_counts.sql), so no count over the contacts table */
  contacts: (db, ids) =>
    db
      .select({ tenantId: contactCounts.tenantId, n: contactCounts.total })
      .from(contactCounts)
      .where(inJson(contactCounts.tenantId, ids)),
  solicitations: countRowsOf(solicitations.tenantId),
  integrations: countRowsOf(integrations.tenantId),
  /** distinct users holding a role in the tenant */
  users: (db, ids) =>
    db
      .select({ tenantId: roleAssignments.scopeId, n: countDistinct(roleAssignments.userId) })
      .from(roleAssignments)
      .where(and(eq(roleAssignments.scopeType, "tenant"), inJson(roleAssignments.scopeId, ids)))
      .groupBy(roleAssignments.scopeId),
};

/** _count for each tenant: the control plane's counters and each shard's in one D1 batch per database, in parallel. */
export async function countForTenants(
  env: Env,
  tenantRefs: { id: string; shard: number }[],
): Promise<Map<string, TenantCounts>> {
  const out = new Map<string, TenantCounts>(
    tenantRefs.map((t) => [t.id, Object.fromEntries(TENANT_COUNT_KEYS.map((k) => [k, 0])) as TenantCounts]),
  );
  const byShard = groupMap(
    tenantRefs,
    (t) => t.shard,
    (t) => t.id,
  );
  const controlKeys: TenantCountKey[] = ["users"];
  const shardKeys = TENANT_COUNT_KEYS.filter((k) => !controlKeys.includes(k));
  await Promise.all([
    countInto(
      out,
      controlDb(env),
      tenantRefs.map((t) => t.id),
      controlKeys,
    ),
    ...[...byShard].map(([shard, ids]) => countInto(out, shardDb(env, shard), ids, shardKeys)),
  ]);
  return out;
}

async function countInto(out: Map<string, TenantCounts>, db: Db, tenantIds: string[], keys: TenantCountKey[]) {
  if (tenantIds.length === 0) return;
  // one query per counter, every tenant id in one bound parameter (inJson), whatever the page size
  const queries = keys.map((key) => ({ key, query: COUNTERS[key](db, tenantIds) }));
  const results = (await db.batch(queries.map((q) => q.query) as [CountQuery, ...CountQuery[]])) as {
    tenantId: string;
    n: number;
  }[][];
  results.forEach((rows, i) => {
    for (const r of rows) out.get(r.tenantId)![queries[i]!.key] = r.n;
  });
}

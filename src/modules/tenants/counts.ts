import { and, count, countDistinct, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { contactCounts, integrations, roleAssignments, solicitations } from "../../db/schema";

export const TENANT_COUNT_KEYS = ["users", "contacts", "solicitations", "integrations"] as const;
export type TenantCountKey = (typeof TENANT_COUNT_KEYS)[number];
export type TenantCounts = Record<TenantCountKey, number>;

type CountQuery = BatchItem<"sqlite"> & PromiseLike<{ tenantId: string; n: number }[]>;
type Counter = (db: Db, tenantIds: string[]) => CountQuery;

/** Rows per tenant of a table with a tenant_id column: `contacts: countRowsOf(contacts.tenantId)`. */
export const countRowsOf =
  (tenantIdColumn: SQLiteColumn): Counter =>
  (db, ids) =>
    db.select({ tenantId: tenantIdColumn, n: count() }).from(tenantIdColumn.table).where(inArray(tenantIdColumn, ids)).groupBy(tenantIdColumn) as unknown as CountQuery;

/** How each _count is computed. */
const COUNTERS: Record<TenantCountKey, Counter> = {
  /** kept exact by triggers (migration 0005), so no count over the contacts table */
  contacts: (db, ids) =>
    db.select({ tenantId: contactCounts.tenantId, n: contactCounts.total }).from(contactCounts).where(inArray(contactCounts.tenantId, ids)),
  solicitations: countRowsOf(solicitations.tenantId),
  integrations: countRowsOf(integrations.tenantId),
  /** distinct users holding a role in the tenant */
  users: (db, ids) =>
    db
      .select({ tenantId: roleAssignments.scopeId, n: countDistinct(roleAssignments.userId) })
      .from(roleAssignments)
      .where(and(eq(roleAssignments.scopeType, "tenant"), inArray(roleAssignments.scopeId, ids)))
      .groupBy(roleAssignments.scopeId),
};

const ID_CHUNK = 90; // D1: at most 100 bound parameters per statement

/** _count for each tenant id, every counter and chunk in one D1 batch. */
export async function countForTenants(db: Db, tenantIds: string[]): Promise<Map<string, TenantCounts>> {
  const out = new Map<string, TenantCounts>(
    tenantIds.map((id) => [id, Object.fromEntries(TENANT_COUNT_KEYS.map((k) => [k, 0])) as TenantCounts]),
  );
  const queries: { key: TenantCountKey; query: CountQuery }[] = [];
  for (let i = 0; i < tenantIds.length; i += ID_CHUNK) {
    const chunk = tenantIds.slice(i, i + ID_CHUNK);
    for (const [key, counter] of Object.entries(COUNTERS) as [TenantCountKey, Counter][]) queries.push({ key, query: counter(db, chunk) });
  }
  if (queries.length === 0) return out;
  const results = (await db.batch(queries.map((q) => q.query) as [CountQuery, ...CountQuery[]])) as { tenantId: string; n: number }[][];
  results.forEach((rows, i) => {
    for (const r of rows) out.get(r.tenantId)![queries[i]!.key] = r.n;
  });
  return out;
}

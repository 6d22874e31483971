import { and, count, desc, eq, gte, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { crossShardPage, everyShard, tenantTarget } from "../../db/cross-shard";
import { auditEvents } from "../../db/schema";
import type { Env } from "../../env";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { csvRow } from "./csv";
import { type AuditFilter, CSV_COLUMNS, toAuditEvent } from "./schemas";

const EXPORT_PAGE_SIZE = 500;

const where = (f: AuditFilter) =>
  and(
    f.tenantId === undefined ? undefined : eq(auditEvents.tenantId, f.tenantId),
    f.action ? eq(auditEvents.action, f.action) : undefined,
    f.resourceType ? eq(auditEvents.resourceType, f.resourceType) : undefined,
    f.resourceId ? eq(auditEvents.resourceId, f.resourceId) : undefined,
    f.actorId ? eq(auditEvents.actorId, f.actorId) : undefined,
    f.from ? gte(auditEvents.occurredAt, f.from) : undefined,
    f.to ? lt(auditEvents.occurredAt, f.to) : undefined,
  );

/** Audit events newest first; a tenant caller always passes its own tenantId, platform admins may omit it. */
export function listAuditEvents(db: Db, q: PageQuery & AuditFilter) {
  const filter = where(q);
  return keysetPage(db, {
    query: q,
    sort: [auditEvents.occurredAt, auditEvents.id],
    rows: (cursor, order, limit) =>
      db
        .select()
        .from(auditEvents)
        .where(and(filter, cursor))
        .orderBy(...order)
        .limit(limit),
    count: db.select({ n: count() }).from(auditEvents).where(filter),
    key: (e) => [e.occurredAt, e.id],
    map: toAuditEvent,
  });
}

/**
 * GET /admin/audit-events: every shard (platform-level rows, tenantId null, live on the control
 * database, shard 0), merged newest first; with a tenantId filter that tenant's shard only.
 */
export async function listAuditEventsAcrossShards(env: Env, q: PageQuery & AuditFilter) {
  const targets = q.tenantId === undefined ? everyShard(env) : await tenantTarget(env, q.tenantId);
  const filter = where(q);
  return crossShardPage(targets, {
    query: q,
    sort: [auditEvents.occurredAt, auditEvents.id],
    onShard: ({ db }) => ({
      rows: (cursor, order, limit) =>
        db
          .select()
          .from(auditEvents)
          .where(and(filter, cursor))
          .orderBy(...order)
          .limit(limit),
      count: db.select({ n: count() }).from(auditEvents).where(filter),
    }),
    key: (e) => [e.occurredAt, e.id],
    map: toAuditEvent,
  });
}

/**
 * The CSV export as a stream: a header row, then one keyset page of events per pull (no count
 * query), so memory stays flat however many events match.
 */
export function exportAuditEventsCsv(db: Db, f: AuditFilter): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const filter = where(f);
  let after: [string, string] | undefined;
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(enc.encode(csvRow([...CSV_COLUMNS])));
      }
      const rows = await db
        .select()
        .from(auditEvents)
        .where(
          and(
            filter,
            after &&
              or(
                lt(auditEvents.occurredAt, after[0]),
                and(eq(auditEvents.occurredAt, after[0]), lt(auditEvents.id, after[1])),
              ),
          ),
        )
        .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id))
        .limit(EXPORT_PAGE_SIZE);
      const chunk = rows.map((e) => csvRow(CSV_COLUMNS.map((c) => e[c]))).join("");
      if (chunk) controller.enqueue(enc.encode(chunk));
      const last = rows[rows.length - 1];
      if (rows.length < EXPORT_PAGE_SIZE || !last) return controller.close();
      after = [last.occurredAt, last.id];
    },
  });
}

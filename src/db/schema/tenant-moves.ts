import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, updatedAt } from "./columns";
import { tenants } from "./tenancy";

/**
 * A tenant move's states, in order (docs/scaling.md, "Moving a tenant"). The transitions live in
 * src/modules/admin/tenant-move.states.ts.
 */
export const TENANT_MOVE_STATES = [
  "fencing",
  "copying",
  "verifying",
  "settling",
  "rechecking",
  "deleting",
  "succeeded",
  "rolling_back",
  "failed",
] as const;
export type TenantMoveState = (typeof TENANT_MOVE_STATES)[number];

/** Per table: rows copied, then the verified count and checksum (source = target). */
export interface TenantMoveTable {
  table: string;
  copied: number;
  rows: number | null;
  checksum: string | null;
}

/** Where the current step is inside its table: a keyset cursor (primary-key values) per side, and a running digest. */
export interface TenantMoveSide {
  after: unknown[] | null;
  rows: number;
  digest: string;
}
export interface TenantMoveCursor {
  source?: TenantMoveSide;
  target?: TenantMoveSide;
}

/**
 * A tenant move as a control-plane record: the JOBS queue advances it one bounded slice per message
 * (src/modules/admin/background.ts); `step` makes a redelivered message's slice a no-op.
 */
export const tenantMoves = sqliteTable(
  "tenant_moves",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    fromShard: integer("from_shard").notNull(),
    toShard: integer("to_shard").notNull(),
    state: text("state", { enum: TENANT_MOVE_STATES }).notNull(),
    /** bumped by every slice that commits (compare-and-set): a message for an older step is stale */
    step: integer("step").notNull().default(0),
    /** the next slice does not run before this (the directory TTL after fencing and after flipping) */
    notBefore: timestamp("not_before"),
    /** the table the current phase is on (index into `tables`; deleting walks it backwards) */
    tableIndex: integer("table_index").notNull().default(0),
    cursor: text("cursor", { mode: "json" }).$type<TenantMoveCursor>().notNull().default({}),
    tables: text("tables", { mode: "json" }).$type<TenantMoveTable[]>().notNull().default([]),
    chunkRows: integer("chunk_rows").notNull(),
    sliceChunks: integer("slice_chunks").notNull(),
    settleSeconds: integer("settle_seconds").notNull(),
    sourceDeleted: integer("source_deleted", { mode: "boolean" }).notNull().default(false),
    sourceChanged: text("source_changed", { mode: "json" }).$type<string[]>().notNull().default([]),
    error: text("error"),
    createdByUserId: text("created_by_user_id"),
    finishedAt: timestamp("finished_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("tenant_moves_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    // one unfinished move per tenant: a second POST fails this index (409)
    uniqueIndex("tenant_moves_one_active_idx").on(t.tenantId).where(sql`state not in ('succeeded', 'failed')`),
  ],
);

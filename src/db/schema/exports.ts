import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { tenants } from "./tenancy";

/**
 * The file of a tenant data export (a `tenant_export` job, src/modules/exports/): JSON Lines in
 * slices, one row per job step, on the tenant's shard. GET /v1/exports/{id}/download streams the
 * slices in `seq` order. The primary key (job, seq) makes a redelivered step's slice a no-op.
 */
export const exportChunks = sqliteTable(
  "export_chunks",
  {
    jobId: text("job_id").notNull(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    seq: integer("seq").notNull(),
    /** JSON Lines: `{"table": ..., "row": {...}}` per line, each line ending in \n */
    body: text("body").notNull(),
    rows: integer("rows").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.seq] }), index("export_chunks_tenant_idx").on(t.tenantId, t.createdAt)],
);

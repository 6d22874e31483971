import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { tenants } from "./tenancy";

/** cancelled: an MCP task the caller cancelled (tasks/cancel) before it finished */
export const JOB_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const JOB_TYPES = [
  "crm_import",
  "contacts_import",
  "campaign_send_bulk",
  "review_sync",
  "tenant_export",
] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** A long-running tenant job (CRM and CSV contact imports, bulk sends, review syncs), polled at GET /v1/jobs/{id} or as an MCP task. */
export const backgroundJobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    type: text("type", { enum: JOB_TYPES }).notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull(),
    /** what the job works on (the integration id for crm_import) */
    subjectId: text("subject_id"),
    /** counters, e.g. {pages, fetched, imported, created, updated, skipped} */
    counts: jsonObject("counts"),
    /** where the next page starts; lets a redelivered or follow-up message resume */
    cursor: text("cursor"),
    error: text("error"),
    createdByUserId: text("created_by_user_id"),
    /** what the job was asked to do (an MCP task's tool input, e.g. the CSV text); null for crm_import */
    input: text("input", { mode: "json" }).$type<Record<string, unknown>>(),
    /** the finished job's answer (an MCP task's tool result), read by tasks/get */
    result: text("result", { mode: "json" }).$type<Record<string, unknown>>(),
    /**
     * The MCP credential that started the job as a task (credential kind, key or user, OAuth client;
     * src/modules/mcp/tasks.ts): only that caller sees the task. Null for jobs started over REST.
     */
    owner: text("owner"),
    startedAt: timestamp("started_at"),
    finishedAt: timestamp("finished_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("jobs_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("jobs_subject_idx").on(t.subjectId),
    // the retention sweep's range seek: jobs finished before a cutoff (src/modules/jobs/retention.ts)
    index("jobs_finished_idx").on(t.finishedAt),
  ],
);

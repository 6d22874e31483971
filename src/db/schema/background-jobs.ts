import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { tenants } from "./tenancy";

export const JOB_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const JOB_TYPES = ["crm_import"] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** A long-running tenant job (CRM contact import today), polled at GET /v1/jobs/{id}. */
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
    startedAt: timestamp("started_at"),
    finishedAt: timestamp("finished_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("jobs_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("jobs_subject_idx").on(t.subjectId),
  ],
);

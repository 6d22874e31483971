import { z } from "@hono/zod-openapi";
import type { backgroundJobs } from "../../db/schema";
import { JOB_STATUSES } from "../../db/schema";
import { DateTime } from "../../lib/openapi";

export const JobSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    type: z.string().openapi({ example: "crm_import" }),
    status: z.enum(JOB_STATUSES),
    subjectId: z.string().nullable().openapi({ description: "what the job works on (the integration for crm_import)" }),
    counts: z
      .record(z.string(), z.number())
      .openapi({ example: { pages: 2, fetched: 150, imported: 148, created: 140, updated: 8, skipped: 2 } }),
    error: z.string().nullable(),
    startedAt: DateTime.nullable(),
    finishedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Job");

export type JobRow = typeof backgroundJobs.$inferSelect;

export const toJob = (r: JobRow) => ({
  id: r.id,
  tenantId: r.tenantId,
  type: r.type,
  status: r.status,
  subjectId: r.subjectId,
  counts: r.counts as Record<string, number>,
  error: r.error,
  startedAt: r.startedAt,
  finishedAt: r.finishedAt,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** What a JOBS queue message carries; `type` picks the consumer. */
export interface JobMessage {
  type: JobRow["type"];
  tenantId: string;
  jobId: string;
}

import { z } from "@hono/zod-openapi";
import { JOB_STATUSES } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import type { JobRow } from "../jobs/schemas";
import { downloadPathOf, expiresAtOf } from "./job";

export const TenantExportSchema = z
  .object({
    id: z.string(),
    status: z.enum(JOB_STATUSES),
    progress: z
      .object({ done: z.number().int(), total: z.number().int() })
      .openapi({ description: "rows written so far, of the rows counted when the export started" }),
    tables: z
      .record(z.string(), z.number().int())
      .openapi({ description: "rows written per table", example: { contacts: 120, reviews: 48 } }),
    error: z.string().nullable(),
    createdAt: DateTime,
    finishedAt: DateTime.nullable(),
    expiresAt: DateTime.nullable().openapi({
      description: "when the download stops working (7 days after it finished)",
    }),
    downloadUrl: z.string().nullable().openapi({
      description: "path of the JSON Lines file, once succeeded and until it expires",
      example: "/v1/exports/job_x/download",
    }),
  })
  .openapi("TenantExport");

export const CreateTenantExportBody = z.object({}).strict().openapi("CreateTenantExport");

export function toTenantExport(job: JobRow, now = Date.now()) {
  const expiresAt = expiresAtOf(job);
  const downloadable = job.status === "succeeded" && expiresAt !== null && Date.parse(expiresAt) > now;
  return {
    id: job.id,
    status: job.status,
    progress: { done: Number(job.counts.done ?? 0), total: Number(job.counts.total ?? 0) },
    tables: (job.result?.tables as Record<string, number> | undefined) ?? {},
    error: job.error,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
    expiresAt,
    downloadUrl: downloadable ? downloadPathOf(job.id) : null,
  };
}

/**
 * tenant.export's answer: the export as GET /v1/exports/{id} shows it (synchronous clients, right after
 * it was queued), or, as a task's result, the finished job's summary with its download path.
 */
export const TenantExportToolResultSchema = TenantExportSchema.partial().extend({
  exportId: z.string().optional().describe("a task's result: the export's id"),
  rows: z.number().int().optional().describe("a task's result: rows written"),
  downloadPath: z
    .string()
    .optional()
    .describe("a task's result: GET this path (tenant_admin credentials, x-tenant-id) for the JSON Lines file"),
});

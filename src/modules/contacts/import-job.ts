import type { z } from "@hono/zod-openapi";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { readCsvFile } from "../../lib/csv";
import { isUniqueViolation } from "../../lib/db-errors";
import { ApiError, notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { type JobStep, queueJob, slicedJobRunner, sliceProgress, sliceStep } from "../jobs/runner";
import type { JobRow } from "../jobs/schemas";
import { newJobRow, readJob } from "../jobs/service";
import { parseCsv, prepareRow, type RowError } from "./import";
import { type ContactImportJobSchema, MAX_IMPORT_JOB_BYTES } from "./schemas";
import { type PreparedContact, planUpserts, upsertStatements } from "./upsert";

/*
 * The CSV contact import as a job, one job with two front doors: REST POST /v1/contacts/import-jobs and
 * an MCP task (docs/mcp.md "Tasks (long jobs)"). The same parsing and upsert as POST
 * /v1/contacts/import/csv, ROWS_PER_STEP rows per JOBS message: a sliced job
 * (src/modules/jobs/runner.ts). Each chunk's upserts, the job's counters and its cursor are ONE batch;
 * the counters are absolute values, so a redelivered chunk never counts twice.
 */

/** Rows one JOBS message imports before it hands the rest to a follow-up message. */
export const ROWS_PER_STEP = 100;

type ContactImportJob = z.infer<typeof ContactImportJobSchema>;

interface ImportTally {
  imported: number;
  skipped: number;
  errors: RowError[];
}

/** Stores the job (queued, durable before the caller hears of it) and queues its first step. */
export async function requestContactsImport(
  ctx: ServiceContext,
  input: { csv: string; fileName?: string },
  owner: string | null,
): Promise<JobRow> {
  // the same refusals as the REST import, before anything is stored: too many rows, no email or phone column
  const total = parseCsv(input.csv).rows.length;
  const job = newJobRow(ctx, "contacts_import", {
    input: { csv: input.csv, fileName: input.fileName ?? "contacts.csv" },
    counts: { done: 0, total, imported: 0, skipped: 0 },
    owner,
  });
  return queueJob(ctx, job, {
    action: "contact.import_requested",
    resourceType: "job",
    metadata: { fileName: job.input!.fileName, rows: total },
  });
}

/**
 * POST /v1/contacts/import-jobs: the REST start of the same job, from the uploaded file read as the
 * synchronous import reads it (encoding by BOM, else UTF-8, else Windows-1252). Refused before anything
 * is stored: over MAX_IMPORT_JOB_BYTES or 5,000 rows (413), no email or phone column (400).
 */
export async function startContactsImport(ctx: ServiceContext, file: File): Promise<ContactImportJob> {
  if (file.size > MAX_IMPORT_JOB_BYTES)
    throw new ApiError(
      "PAYLOAD_TOO_LARGE",
      "An import job takes at most 1 MB; nothing was imported (POST /v1/contacts/import/csv takes up to 10 MB)",
      { reason: "file_too_large" },
    );
  const job = await requestContactsImport(
    ctx,
    { csv: await readCsvFile(file), fileName: file.name || undefined },
    null,
  );
  return toContactImportJob(job);
}

/** GET /v1/contacts/import-jobs/{jobId}: the job's own row, as far as it got; another tenant's, or another kind of job, is 404. */
export async function getContactsImport(ctx: ServiceContext, jobId: string): Promise<ContactImportJob> {
  const job = await readJob(ctx.db, ctx.tenantId, jobId);
  if (job?.type !== "contacts_import") throw notFound("Import job");
  return toContactImportJob(job);
}

export function toContactImportJob(job: JobRow): ContactImportJob {
  const tally = (job.result as ImportTally | null) ?? { imported: 0, skipped: 0, errors: [] };
  const counts = job.counts as Record<string, number>;
  return {
    id: job.id,
    status: job.status,
    fileName: String(job.input?.fileName ?? "contacts.csv"),
    rowsTotal: counts.total ?? 0,
    rowsDone: counts.done ?? 0,
    imported: tally.imported,
    skipped: tally.skipped,
    errors: tally.errors,
    error: job.error,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

/** The cursor is the index of the next row to import ("0" before the first chunk). */
const cursorOf = (job: JobRow) => Number(job.cursor ?? 0);

async function importChunk(ctx: ServiceContext, job: JobRow, retried = false): Promise<JobStep> {
  const { rows, broken } = parseCsv(String(job.input?.csv ?? ""));
  const from = cursorOf(job);
  const to = Math.min(rows.length, from + ROWS_PER_STEP);
  const so = (job.result as ImportTally | null) ?? { imported: 0, skipped: 0, errors: [] };
  const errors: RowError[] = [];
  const accepted: { row: number; input: PreparedContact }[] = [];
  for (let i = from; i < to; i++) {
    const prepared = broken.has(i) ? `Malformed CSV: ${broken.get(i)}` : prepareRow(rows[i]!);
    if (typeof prepared === "string") errors.push({ row: i + 1, reason: prepared });
    else accepted.push({ row: i + 1, input: prepared });
  }
  const now = nowIso();
  const plan = await planUpserts(
    ctx,
    accepted.map((a) => a.input),
    now,
  );
  let imported = 0;
  plan.outcomes.forEach((o, i) => {
    if ("error" in o) errors.push({ row: accepted[i]!.row, reason: o.error });
    else imported++;
  });
  errors.sort((a, b) => a.row - b.row);
  const tally: ImportTally = {
    imported: so.imported + imported,
    skipped: so.skipped + errors.length,
    errors: [...so.errors, ...errors],
  };
  const last = to >= rows.length;
  const counts = { done: to, total: rows.length, imported: tally.imported, skipped: tally.skipped };
  try {
    await commit(ctx, [
      ...upsertStatements(ctx, plan.rows),
      sliceProgress(ctx, job, {
        counts,
        cursor: String(to),
        result: tally as unknown as Record<string, unknown>,
        last,
        now,
      }),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "contact.imported",
        resourceType: "contact_import",
        resourceId: job.id,
        nextState: {
          fileName: job.input?.fileName,
          rows: `${from + 1}-${to}`,
          imported,
          skipped: errors.length,
          created: plan.rows.filter((r) => !plan.before.has(r.id)).map((r) => r.id),
          updated: plan.rows.filter((r) => plan.before.has(r.id)).map((r) => r.id),
        },
      }),
    ]);
  } catch (e) {
    // a concurrent write took an email or phone after the lookup; nothing of the chunk was written: match again, once
    if (isUniqueViolation(e) && !retried) return importChunk(ctx, job, true);
    throw e;
  }
  return sliceStep(last);
}

/** JOBS runner of contacts_import: one chunk per message; finished or cancelled jobs are skipped. */
export const runContactsImport = slicedJobRunner("contacts-import", (ctx, job) => importChunk(ctx, job));

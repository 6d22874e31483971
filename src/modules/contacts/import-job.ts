import { and, eq, isNull } from "drizzle-orm";
import { backgroundJobs } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import type { JobRunner, JobStep } from "../jobs/runner";
import type { JobMessage, JobRow } from "../jobs/schemas";
import { isFinished, newJobRow, readJob } from "../jobs/service";
import { parseCsv, prepareRow, type RowError } from "./import";
import { type PreparedContact, planUpserts, upsertStatements } from "./upsert";

/*
 * The CSV contact import as a job (an MCP task, docs/mcp.md "Tasks (long jobs)"): the same parsing and
 * upsert as POST /v1/contacts/import/csv, ROWS_PER_STEP rows per JOBS message. Each chunk's upserts,
 * the job's counters and its cursor are ONE batch, and the counters are absolute values written only
 * where the cursor is still the one the step started from: a redelivered or concurrent message either
 * resumes after the stored cursor or changes nothing, so progress is never counted twice.
 */

/** Rows one JOBS message imports before it hands the rest to a follow-up message. */
export const ROWS_PER_STEP = 100;

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
  await commit(ctx, [
    ctx.db.insert(backgroundJobs).values(job),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "contact.import_requested",
      resourceType: "job",
      resourceId: job.id,
      metadata: { fileName: job.input!.fileName, rows: total },
    }),
  ]);
  await ctx.env.JOBS.send({ type: "contacts_import", tenantId: ctx.tenantId, jobId: job.id } satisfies JobMessage);
  return job;
}

/** The cursor is the index of the next row to import ("0" before the first chunk). */
const cursorOf = (job: JobRow) => Number(job.cursor ?? 0);
const cursorIs = (job: JobRow) =>
  job.cursor === null ? isNull(backgroundJobs.cursor) : eq(backgroundJobs.cursor, job.cursor);

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
      ctx.db
        .update(backgroundJobs)
        .set({
          counts,
          cursor: String(to),
          result: tally as unknown as Record<string, unknown>,
          updatedAt: now,
          ...(last ? { status: "succeeded" as const, finishedAt: now } : {}),
        })
        .where(
          and(
            eq(backgroundJobs.id, job.id),
            eq(backgroundJobs.tenantId, job.tenantId),
            // a job cancelled meanwhile keeps its counts and status
            eq(backgroundJobs.status, "running"),
            cursorIs(job),
          ),
        ),
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
  return last ? { kind: "done" } : { kind: "continue" };
}

/** JOBS runner of contacts_import: one chunk per message; finished or cancelled jobs are skipped. */
export const runContactsImport: JobRunner = async (env, msg) => {
  const ctx = await systemContext(env, msg.tenantId, "contacts-import");
  let job = await readJob(ctx.db, msg.tenantId, msg.jobId);
  if (!job || isFinished(job)) return { kind: "skipped" };
  if (job.status === "queued") {
    const startedAt = nowIso();
    await ctx.db
      .update(backgroundJobs)
      .set({ status: "running", startedAt, updatedAt: startedAt })
      .where(and(eq(backgroundJobs.id, job.id), eq(backgroundJobs.status, "queued")));
    job = { ...job, status: "running", startedAt };
  }
  try {
    return await importChunk(ctx, job);
  } finally {
    await ctx.settle();
  }
};

import { and, asc, count, eq, gt } from "drizzle-orm";
import { exportChunks } from "../../db/schema";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { JOB_PAYLOAD_DAYS } from "../jobs/retention";
import { type JobStep, queueJob, slicedJobRunner, sliceProgress, sliceStep } from "../jobs/runner";
import type { JobRow } from "../jobs/schemas";
import { newJobRow } from "../jobs/service";
import { EXPORT_TABLES } from "./tables";

/*
 * The tenant data export as a job (REST /v1/exports, MCP tenant.export; docs/exports.md), a sliced job
 * (src/modules/jobs/runner.ts): each JOBS message writes ONE slice of up to ROWS_PER_STEP rows as JSON
 * Lines into export_chunks, in the same batch as the job's counters and cursor. The slice's key is
 * (job, seq), inserted or ignored, so a concurrent twin of a step never writes a line twice.
 */

/** Rows one JOBS message exports (a slice stays far below D1's 2 MB row limit). */
export const ROWS_PER_STEP = 500;
/**
 * A finished export can be downloaded for this long: as long as the jobs retention sweep keeps a finished
 * job's payload, which then deletes the slices (src/modules/jobs/retention.ts).
 */
export const EXPORT_TTL_MS = JOB_PAYLOAD_DAYS * 24 * 3600 * 1000;

/** Where the next slice starts: the table's index in EXPORT_TABLES and the last id written of it. */
interface Cursor {
  t: number;
  after: string | null;
}
const readCursor = (job: JobRow): Cursor => (job.cursor ? (JSON.parse(job.cursor) as Cursor) : { t: 0, after: null });

export const downloadPathOf = (jobId: string) => `/v1/exports/${jobId}/download`;
export const expiresAtOf = (job: Pick<JobRow, "finishedAt">) =>
  job.finishedAt ? new Date(Date.parse(job.finishedAt) + EXPORT_TTL_MS).toISOString() : null;

/** How many rows the export will hold (shown as progress total; rows added meanwhile are exported too). */
async function countRows(ctx: ServiceContext) {
  const counts = await Promise.all(
    EXPORT_TABLES.map((e) =>
      ctx.db.select({ n: count() }).from(e.table).where(eq(e.table.tenantId, ctx.tenantId)).get(),
    ),
  );
  return counts.reduce((sum, c) => sum + (c?.n ?? 0), 0);
}

/** Stores the export job (queued, with its audit row) and queues its first step. */
export async function requestTenantExport(ctx: ServiceContext, owner: string | null): Promise<JobRow> {
  const total = await countRows(ctx);
  const job = newJobRow(ctx, "tenant_export", { input: {}, counts: { done: 0, total, chunks: 0 }, owner });
  return queueJob(ctx, job, {
    action: "tenant_export.requested",
    resourceType: "tenant_export",
    metadata: { tables: EXPORT_TABLES.map((e) => e.name), rows: total },
  });
}

async function exportSlice(ctx: ServiceContext, job: JobRow): Promise<JobStep> {
  const limit = Number(job.input?.rowsPerStep ?? ROWS_PER_STEP);
  let { t, after } = readCursor(job);
  const lines: string[] = [];
  const perTable = { ...((job.result?.tables as Record<string, number> | undefined) ?? {}) };
  while (lines.length < limit && t < EXPORT_TABLES.length) {
    const e = EXPORT_TABLES[t]!;
    const want = limit - lines.length;
    const rows = await ctx.db
      .select(e.columns)
      .from(e.table)
      .where(and(eq(e.table.tenantId, ctx.tenantId), after === null ? undefined : gt(e.table.id, after)))
      .orderBy(asc(e.table.id))
      .limit(want);
    for (const row of rows) lines.push(JSON.stringify({ table: e.name, row }));
    if (rows.length) perTable[e.name] = (perTable[e.name] ?? 0) + rows.length;
    if (rows.length < want) {
      t++;
      after = null;
    } else after = String(rows.at(-1)!.id);
  }
  const last = t >= EXPORT_TABLES.length;
  const now = nowIso();
  const seq = Number(job.counts.chunks ?? 0);
  const done = Number(job.counts.done ?? 0) + lines.length;
  const counts = {
    done,
    // rows added since the count are exported too: the total never reads below what is done
    total: last ? done : Math.max(done, Number(job.counts.total ?? 0)),
    chunks: lines.length ? seq + 1 : seq,
  };
  const result = {
    exportId: job.id,
    rows: done,
    tables: perTable,
    ...(last ? { downloadPath: downloadPathOf(job.id), expiresAt: expiresAtOf({ finishedAt: now }) } : {}),
  };
  await commit(ctx, [
    ...(lines.length
      ? [
          ctx.db
            .insert(exportChunks)
            .values({
              jobId: job.id,
              tenantId: ctx.tenantId,
              seq,
              body: `${lines.join("\n")}\n`,
              rows: lines.length,
              createdAt: now,
            })
            // a concurrent twin of this step already wrote the slice: keep the first
            .onConflictDoNothing(),
        ]
      : []),
    sliceProgress(ctx, job, { counts, cursor: JSON.stringify({ t, after } satisfies Cursor), result, last, now }),
  ]);
  return sliceStep(last);
}

/** JOBS runner of tenant_export: one slice per message; finished or cancelled jobs are skipped. */
export const runTenantExport = slicedJobRunner("tenant-export", exportSlice);

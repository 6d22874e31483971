import { and, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { backgroundJobs, exportChunks } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { log } from "../../lib/log";
import { inJson } from "../../lib/sql";
import { addDays, nowIso } from "../../lib/time";
import { FINISHED_STATUSES } from "./service";

/*
 * Retention of finished jobs (docs/automation.md, same title). A job keeps what it was asked to do
 * (`input`: an imported CSV or a bulk send's recipients hold personal data) and, for an export, the
 * file it wrote (export_chunks). Nothing reads either once the job is finished, so both go
 * JOB_PAYLOAD_DAYS after it finished; the row itself (status, counts, result: what GET /v1/jobs/{id}
 * and tasks/get answer) goes JOB_ROW_DAYS after it finished. A queued or running job keeps its input
 * while it may still progress; one without progress for JOB_STALLED_DAYS (its messages dead-lettered,
 * a review sync nobody polls) is stopped as failed, so the same rules then apply to it.
 */

/** A finished job's input and its export slices are kept this long (also the export's download window). */
export const JOB_PAYLOAD_DAYS = 7;
/** A finished job's row is kept this long; after that it is not found, like an id that never existed. */
export const JOB_ROW_DAYS = 30;
/** A queued or running job whose row has not moved for this long is stopped (failed). */
export const JOB_STALLED_DAYS = 7;
export const STALLED_ERROR = `Stopped: no progress for ${JOB_STALLED_DAYS} days`;
/** Rows per statement, and statements per kind and run: the daily run resumes where the last one stopped. */
export const JOB_PURGE_LIMITS = { batch: 100, maxBatches: 50 };

export interface JobPurgeCounts {
  jobsStopped: number;
  inputsCleared: number;
  slicesDeleted: number;
  jobsDeleted: number;
}

const finishedBefore = (cutoff: string) =>
  and(lt(backgroundJobs.finishedAt, cutoff), inArray(backgroundJobs.status, FINISHED_STATUSES));

/** Runs `once` (one bounded statement, returning rows changed) until a short batch or the run's bound. */
async function inBatches(limits: typeof JOB_PURGE_LIMITS, once: (limit: number) => Promise<number>) {
  let total = 0;
  for (let i = 0; i < limits.maxBatches; i++) {
    const n = await once(limits.batch);
    total += n;
    if (n < limits.batch) break;
  }
  return total;
}

/** Queued or running jobs last updated before the cutoff: the NULL entries of jobs_finished_idx. */
export const dueStalled = (db: ShardDb, cutoff: string, limit: number) =>
  db
    .select({ id: backgroundJobs.id })
    .from(backgroundJobs)
    .where(
      and(
        isNull(backgroundJobs.finishedAt),
        inArray(backgroundJobs.status, ["queued", "running"]),
        lt(backgroundJobs.updatedAt, cutoff),
      ),
    )
    .limit(limit);

/** Finished jobs (before the cutoff) that still keep their input: a range seek on jobs_finished_idx. */
export const dueInputs = (db: ShardDb, cutoff: string, limit: number) =>
  db
    .select({ id: backgroundJobs.id })
    .from(backgroundJobs)
    .where(and(finishedBefore(cutoff), isNotNull(backgroundJobs.input)))
    .limit(limit);

/** Slices of exports finished before the cutoff, by rowid (a slice's key is two columns). */
export const dueSlices = (db: ShardDb, cutoff: string, limit: number) =>
  db
    .select({ rowid: sql<number>`${exportChunks}.rowid` })
    .from(backgroundJobs)
    // by job id alone (ids are unique across tenants): the slices' key (job_id, seq), not the tenant index
    .innerJoin(exportChunks, eq(exportChunks.jobId, backgroundJobs.id))
    .where(and(eq(backgroundJobs.type, "tenant_export"), finishedBefore(cutoff)))
    .limit(limit);

/** Job rows finished before the cutoff. */
export const dueJobs = (db: ShardDb, cutoff: string, limit: number) =>
  db.select({ id: backgroundJobs.id }).from(backgroundJobs).where(finishedBefore(cutoff)).limit(limit);

/** Stalled jobs become failed as of now; a step that moves one meanwhile wins (its update needs `running`). */
const stopStalled = async (db: ShardDb, cutoff: string, limit: number, now: string) => {
  const { meta } = await db
    .update(backgroundJobs)
    .set({ status: "failed", error: STALLED_ERROR, finishedAt: now, updatedAt: now })
    .where(
      and(
        inArray(backgroundJobs.id, dueStalled(db, cutoff, limit)),
        inArray(backgroundJobs.status, ["queued", "running"]),
        lt(backgroundJobs.updatedAt, cutoff),
      ),
    )
    .run();
  return meta.changes ?? 0;
};

const clearInputs = async (db: ShardDb, cutoff: string, limit: number) => {
  const { meta } = await db
    .update(backgroundJobs)
    .set({ input: null })
    .where(inArray(backgroundJobs.id, dueInputs(db, cutoff, limit)))
    .run();
  return meta.changes ?? 0;
};

const deleteSlices = async (db: ShardDb, cutoff: string, limit: number) => {
  const { meta } = await db
    .delete(exportChunks)
    .where(inArray(sql`rowid`, dueSlices(db, cutoff, limit)))
    .run();
  return meta.changes ?? 0;
};

/** Job rows finished before the cutoff, with any slice still left of them, in one batch. */
const deleteJobs = async (db: ShardDb, cutoff: string, limit: number) => {
  const ids = (await dueJobs(db, cutoff, limit)).map((r) => r.id);
  if (!ids.length) return 0;
  await db.batch([
    db.delete(exportChunks).where(inJson(exportChunks.jobId, ids)),
    db.delete(backgroundJobs).where(inJson(backgroundJobs.id, ids)),
  ]);
  return ids.length;
};

/**
 * One shard's purge, in bounded batches. Idempotent: a cleared input, a deleted slice or row no longer
 * matches, so reruns and overlapping runs do no harm.
 */
export async function purgeFinishedJobs(db: ShardDb, now: Date, limits = JOB_PURGE_LIMITS): Promise<JobPurgeCounts> {
  const payloadCutoff = nowIso(addDays(now, -JOB_PAYLOAD_DAYS));
  const rowCutoff = nowIso(addDays(now, -JOB_ROW_DAYS));
  const counts = {
    jobsStopped: await inBatches(limits, (n) =>
      stopStalled(db, nowIso(addDays(now, -JOB_STALLED_DAYS)), n, nowIso(now)),
    ),
    inputsCleared: await inBatches(limits, (n) => clearInputs(db, payloadCutoff, n)),
    slicesDeleted: await inBatches(limits, (n) => deleteSlices(db, payloadCutoff, n)),
    jobsDeleted: await inBatches(limits, (n) => deleteJobs(db, rowCutoff, n)),
  };
  if (Object.values(counts).some(Boolean)) log.info("finished jobs purged", counts);
  return counts;
}

/**
 * Erasure of a contact (contacts/privacy.ts): the tenant's finished jobs' inputs are cleared in the
 * erasure's batch, since an imported CSV may name the person and matching its rows to the contact is
 * guesswork (formats differ). Nothing reads a finished job's input, so clearing them all loses nothing.
 */
export const clearFinishedJobInputs = (ctx: ServiceContext) =>
  ctx.db
    .update(backgroundJobs)
    .set({ input: null })
    .where(
      and(
        eq(backgroundJobs.tenantId, ctx.tenantId),
        inArray(backgroundJobs.status, FINISHED_STATUSES),
        isNotNull(backgroundJobs.input),
      ),
    );

import { and, eq, isNull } from "drizzle-orm";
import { backgroundJobs } from "../../db/schema";
import type { Env } from "../../env";
import { type AuditInput, auditStatement } from "../../lib/audit";
import { backoffSeconds } from "../../lib/backoff";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import type { JobMessage, JobRow } from "./schemas";
import { isFinished, readJob } from "./service";

export type FetchFn = typeof fetch;

const realFetch: FetchFn = (...args) => fetch(...args);
let jobsFetch: FetchFn = realFetch;

/** Test seam: where job runners' outbound requests go (a stand-in in tests); no argument restores fetch. */
export const setJobsFetch = (fn?: FetchFn) => {
  jobsFetch = fn ?? realFetch;
};

/** One step of a job: done (or nothing to do), continue in a follow-up message, or retry this one. */
export type JobStep =
  | { kind: "done" }
  | { kind: "skipped" }
  | { kind: "continue" }
  | { kind: "retry"; delaySeconds: number | null };
export type JobRunner = (env: Env, msg: JobMessage, attempt: number, fetchFn: FetchFn) => Promise<JobStep>;

/** Job kind -> the runner that advances it; the composition root gives one for every kind. */
export type JobRunners = Record<JobRow["type"], JobRunner>;

const isJobMessage = (b: unknown): b is JobMessage =>
  Boolean(b) &&
  typeof (b as JobMessage).type === "string" &&
  typeof (b as JobMessage).jobId === "string" &&
  typeof (b as JobMessage).tenantId === "string";

/**
 * JOBS consumer: each message advances one job by one bounded step. A job that has more to do
 * sends itself a follow-up message (its progress lives in the job row, so redelivery resumes).
 */
export const jobsConsumer =
  (runners: JobRunners) =>
  (batch: MessageBatch<unknown>, env: Env): Promise<void> =>
    consumeJobs(runners, batch, env, { fetch: jobsFetch });

async function consumeJobs(runners: JobRunners, batch: MessageBatch<unknown>, env: Env, deps: { fetch: FetchFn }) {
  for (const message of batch.messages) {
    const body = message.body;
    const runner = isJobMessage(body) ? runners[body.type] : undefined;
    if (!isJobMessage(body) || !runner) {
      log.warn("unknown jobs message dropped", { id: message.id });
      message.ack();
      continue;
    }
    try {
      const step = await runner(env, body, message.attempts, deps.fetch);
      if (step.kind === "retry") {
        message.retry({ delaySeconds: step.delaySeconds ?? backoffSeconds(message.attempts) });
        continue;
      }
      if (step.kind === "continue") await env.JOBS.send(body);
      message.ack();
    } catch (err) {
      log.error("job step failed", { jobId: body.jobId, error: String(err) });
      message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  }
}

/*
 * Sliced jobs (the CSV contact import, the tenant export): each JOBS message does one bounded slice of
 * the work and writes the slice's output, the job's counters and its cursor in ONE batch, applied only
 * where the job is still running at the cursor the slice read. A redelivered or concurrent message
 * either resumes after the stored cursor or changes nothing, so no slice is counted or written twice.
 */

/** Stores the queued job with its audit row (one batch, durable before the caller hears of it), then queues its first step. */
export async function queueJob(ctx: ServiceContext, job: JobRow, audit: Omit<AuditInput, "tenantId" | "resourceId">) {
  await commit(ctx, [
    ctx.db.insert(backgroundJobs).values(job),
    auditStatement(ctx, { ...audit, tenantId: ctx.tenantId, resourceId: job.id }),
  ]);
  await ctx.env.JOBS.send({ type: job.type, tenantId: ctx.tenantId, jobId: job.id } satisfies JobMessage);
  return job;
}

/**
 * The JOBS runner of a sliced job: reads the job on its tenant's shard (finished, cancelled or gone:
 * skipped), moves a queued one to running, runs one slice, then awaits the slice's deferred work.
 */
export const slicedJobRunner =
  (actor: string, slice: (ctx: ServiceContext, job: JobRow) => Promise<JobStep>): JobRunner =>
  async (env, msg) => {
    const ctx = await systemContext(env, msg.tenantId, actor);
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
      return await slice(ctx, job);
    } finally {
      await ctx.settle();
    }
  };

/**
 * A slice's progress: counters, the next cursor and the result so far; the last slice also finishes
 * the job. Goes in the slice's batch. Applies only where the job is still running (a job cancelled
 * meanwhile keeps its counts and status) at the cursor the slice started from.
 */
export function sliceProgress(
  ctx: ServiceContext,
  job: JobRow,
  o: { counts: Record<string, number>; cursor: string; result: Record<string, unknown>; last: boolean; now: string },
) {
  return ctx.db
    .update(backgroundJobs)
    .set({
      counts: o.counts,
      cursor: o.cursor,
      result: o.result,
      updatedAt: o.now,
      ...(o.last ? { status: "succeeded" as const, finishedAt: o.now } : {}),
    })
    .where(
      and(
        eq(backgroundJobs.id, job.id),
        eq(backgroundJobs.tenantId, job.tenantId),
        eq(backgroundJobs.status, "running"),
        job.cursor === null ? isNull(backgroundJobs.cursor) : eq(backgroundJobs.cursor, job.cursor),
      ),
    );
}

/** What a slice answers: the job is done, or a follow-up message does the next slice. */
export const sliceStep = (last: boolean): JobStep => (last ? { kind: "done" } : { kind: "continue" });

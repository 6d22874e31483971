import { and, eq, inArray } from "drizzle-orm";
import { backgroundJobs, integrations } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import type { JobRunner } from "../jobs/runner";
import type { JobRow } from "../jobs/schemas";
import { isFinished, newJobRow, readJob } from "../jobs/service";
import { requestSync } from "./sync";

/*
 * A review sync as a job (an MCP task, docs/mcp.md "Tasks (long jobs)"). The work is the REVIEW_SYNC
 * messages POST /v1/reviews/sync queues, one per connection; their outcome is recorded on each
 * connection (lastSyncAt, lastSyncStatus), which stays the only record of it. The job row keeps which
 * connections it queued and when; `settleReviewSync` counts a connection done once its row shows an
 * outcome at or after that time (a sync that succeeded: lastSyncAt = the job's start; one that ended
 * in an error: status error written since), so counting again never counts twice.
 */

interface SyncJobInput {
  locationId: string | null;
  integrationIds: string[];
  queued: Record<string, unknown>;
}

/** Queues the syncs (the REST request's own work) and stores the job that follows them. */
export async function requestReviewSyncJob(
  ctx: ServiceContext,
  input: { locationId?: string },
  owner: string | null,
): Promise<JobRow> {
  const startedAt = nowIso();
  const queued = await requestSync(ctx, input, startedAt);
  const job = newJobRow(ctx, "review_sync", {
    input: {
      locationId: input.locationId ?? null,
      integrationIds: queued.jobs.map((j) => j.integrationId),
      // the synchronous answer, which the task's result repeats with the outcome
      queued,
    },
    counts: { done: 0, total: queued.queued },
    owner,
  });
  const row: JobRow = { ...job, status: "running", startedAt };
  await commit(ctx, [
    ctx.db.insert(backgroundJobs).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "review.sync_job_started",
      resourceType: "job",
      resourceId: row.id,
      metadata: { connections: queued.queued },
    }),
  ]);
  return settleReviewSync(ctx, row);
}

/**
 * Reads the outcome of each connection the job queued; stores the counts when they moved and the
 * result once every connection has one. Returns the job as it now stands.
 */
export async function settleReviewSync(ctx: ServiceContext, job: JobRow): Promise<JobRow> {
  if (isFinished(job) || !job.startedAt) return job;
  const ids = (job.input as unknown as SyncJobInput).integrationIds;
  const rows = ids.length
    ? await ctx.db
        .select()
        .from(integrations)
        .where(and(eq(integrations.tenantId, job.tenantId), inArray(integrations.id, ids)))
    : [];
  const since = job.startedAt;
  type Outcome = { integrationId: string; siteType: string | null; status: "ok" | "error"; error?: string | null };
  const results = ids.flatMap((id): Outcome[] => {
    const r = rows.find((x) => x.id === id);
    if (!r) return [{ integrationId: id, siteType: null, status: "error", error: "The connection was removed" }];
    if (r.lastSyncAt && r.lastSyncAt >= since) return [{ integrationId: id, siteType: r.connectorType, status: "ok" }];
    if (r.lastSyncStatus === "error" && r.updatedAt >= since)
      return [{ integrationId: id, siteType: r.connectorType, status: "error", error: r.lastSyncError }];
    return [];
  });
  const done = results.length;
  if (done === Number(job.counts.done ?? 0) && done < ids.length) return job;
  const now = nowIso();
  const last = done >= ids.length;
  const synced = results.filter((x) => x.status === "ok").length;
  const set: Partial<JobRow> = {
    counts: { done, total: ids.length },
    updatedAt: now,
    ...(last
      ? {
          status: "succeeded" as const,
          finishedAt: now,
          result: {
            ...(job.input as unknown as SyncJobInput).queued,
            outcome: { synced, failed: done - synced, results },
          },
        }
      : {}),
  };
  await ctx.db
    .update(backgroundJobs)
    .set(set)
    .where(
      and(
        eq(backgroundJobs.id, job.id),
        eq(backgroundJobs.tenantId, job.tenantId),
        eq(backgroundJobs.status, "running"),
      ),
    );
  return { ...job, ...set };
}

/** JOBS runner of review_sync: settles the job (the syncs themselves run on REVIEW_SYNC; nothing queues this). */
export const runReviewSyncJob: JobRunner = async (env, msg) => {
  const ctx = await systemContext(env, msg.tenantId, "review-sync-job");
  const job = await readJob(ctx.db, msg.tenantId, msg.jobId);
  if (!job || isFinished(job)) return { kind: "skipped" };
  const settled = await settleReviewSync(ctx, job);
  return isFinished(settled) ? { kind: "done" } : { kind: "retry", delaySeconds: 60 };
};

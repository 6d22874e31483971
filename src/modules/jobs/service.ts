import { and, eq } from "drizzle-orm";
import { backgroundJobs } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { type JobRow, toJob } from "./schemas";

export async function getJob(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(backgroundJobs)
    .where(and(eq(backgroundJobs.id, id), eq(backgroundJobs.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Job");
  return toJob(row);
}

/** A job the caller starts: stored queued with its input (what the steps work on) and who may follow it. */
export function newJobRow(
  ctx: ServiceContext,
  type: JobRow["type"],
  o: {
    input: Record<string, unknown>;
    counts: Record<string, number>;
    owner?: string | null;
    subjectId?: string | null;
  },
): JobRow {
  const now = nowIso();
  return {
    id: `job_${newId()}`,
    tenantId: ctx.tenantId,
    type,
    status: "queued",
    subjectId: o.subjectId ?? null,
    counts: o.counts,
    cursor: null,
    error: null,
    createdByUserId: ctx.actor.type === "user" ? ctx.actor.userId : null,
    input: o.input,
    result: null,
    owner: o.owner ?? null,
    startedAt: null,
    finishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The job row of a JOBS message, read on the message's tenant shard. */
export const readJob = (db: ServiceContext["db"], tenantId: string, id: string) =>
  db
    .select()
    .from(backgroundJobs)
    .where(and(eq(backgroundJobs.id, id), eq(backgroundJobs.tenantId, tenantId)))
    .get();

/** A job that will not be advanced again: succeeded, failed, or cancelled by its caller. */
export const FINISHED_STATUSES = ["succeeded", "failed", "cancelled"] as const satisfies JobRow["status"][];
export const isFinished = (job: Pick<JobRow, "status">) =>
  (FINISHED_STATUSES as readonly JobRow["status"][]).includes(job.status);

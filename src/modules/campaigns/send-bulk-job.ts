import { and, eq } from "drizzle-orm";
import { backgroundJobs, type MessageChannel } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import type { JobRunner } from "../jobs/runner";
import type { JobMessage, JobRow } from "../jobs/schemas";
import { isFinished, newJobRow, readJob } from "../jobs/service";
import { sendableCampaign } from "./send";
import { parse, sendCampaignBulk } from "./send-bulk";

/*
 * The campaign bulk send as a job (an MCP task, docs/mcp.md "Tasks (long jobs)"): the very send of
 * POST /v1/campaigns/{id}/send-bulk, run by one JOBS message. Messages to customers are sent at most
 * once: only the delivery that moves the job from queued to running sends, under the job's id as the
 * send id (the solicitations' idempotency keys); a redelivery that finds the job running (its worker
 * died mid-send) fails the job with a reason instead of sending again.
 */

export interface BulkSendInput {
  campaignId: string;
  csv: string;
  fileName?: string;
  locationId?: string;
  channel?: MessageChannel;
  templateId?: string;
}

/** Stores the job (queued, durable before the caller hears of it) and queues it. */
export async function requestCampaignSendBulk(
  ctx: ServiceContext,
  input: BulkSendInput,
  owner: string | null,
): Promise<JobRow> {
  // the refusals the REST send answers at once: unknown or inactive campaign, too many rows, no address column
  await sendableCampaign(ctx, input.campaignId, input.channel);
  const total = parse(input.csv).rows.length;
  const job = newJobRow(ctx, "campaign_send_bulk", {
    input: { ...input, fileName: input.fileName ?? "contacts.csv" },
    counts: { done: 0, total },
    owner,
    subjectId: input.campaignId,
  });
  await commit(ctx, [
    ctx.db.insert(backgroundJobs).values(job),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "campaign.send_requested",
      resourceType: "job",
      resourceId: job.id,
      metadata: { campaignId: input.campaignId, rows: total, bulk: true },
    }),
  ]);
  await ctx.env.JOBS.send({ type: "campaign_send_bulk", tenantId: ctx.tenantId, jobId: job.id } satisfies JobMessage);
  return job;
}

const byId = (job: JobRow) => and(eq(backgroundJobs.id, job.id), eq(backgroundJobs.tenantId, job.tenantId));

/** JOBS runner of campaign_send_bulk. */
export const runCampaignSendBulk: JobRunner = async (env, msg) => {
  const ctx = await systemContext(env, msg.tenantId, "campaign-send-bulk");
  const job = await readJob(ctx.db, msg.tenantId, msg.jobId);
  if (!job || isFinished(job)) return { kind: "skipped" };
  const now = nowIso();
  if (job.status === "running") {
    await ctx.db
      .update(backgroundJobs)
      .set({
        status: "failed",
        error: "The send was interrupted; see the campaign's solicitations before sending the rest again",
        finishedAt: now,
        updatedAt: now,
      })
      .where(and(byId(job), eq(backgroundJobs.status, "running")));
    return { kind: "done" };
  }
  const won = await ctx.db
    .update(backgroundJobs)
    .set({ status: "running", startedAt: now, updatedAt: now })
    .where(and(byId(job), eq(backgroundJobs.status, "queued")))
    .returning({ id: backgroundJobs.id });
  if (!won.length) return { kind: "skipped" };
  const input = job.input as unknown as BulkSendInput;
  const total = Number(job.counts.total ?? 0);
  try {
    const result = await sendCampaignBulk(
      ctx,
      input.campaignId,
      {
        file: new File([input.csv], input.fileName ?? "contacts.csv", { type: "text/csv" }),
        locationId: input.locationId,
        channel: input.channel,
        templateId: input.templateId,
      },
      false,
      job.id,
    );
    const done = nowIso();
    await ctx.db
      .update(backgroundJobs)
      .set({
        status: "succeeded",
        counts: { done: result.total, total: result.total },
        result,
        finishedAt: done,
        updatedAt: done,
      })
      .where(and(byId(job), eq(backgroundJobs.status, "running")));
  } catch (e) {
    // a refusal the REST send would answer (campaign deactivated meanwhile, unknown template) ends the job with its message
    const message = e instanceof ApiError && e.status < 500 ? e.message : "Internal error";
    if (!(e instanceof ApiError)) log.error("bulk send job failed", { jobId: job.id, error: String(e) });
    const done = nowIso();
    await ctx.db
      .update(backgroundJobs)
      .set({ status: "failed", error: message, counts: { done: 0, total }, finishedAt: done, updatedAt: done })
      .where(and(byId(job), eq(backgroundJobs.status, "running")));
  } finally {
    await ctx.settle();
  }
  return { kind: "done" };
};

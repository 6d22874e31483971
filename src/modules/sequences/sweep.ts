import { and, eq, sql } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { type MessageChannel, sequenceEnrollments, sequenceStepRuns } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import { nextStep, type StepDef, type StopReason, sequenceStepsOf, stopEnrollments } from "./service";
import type { CreatedSolicitation, SolicitationCreator } from "./types";

const BATCH = 100;
const MAX_BATCHES = 10;
/** a claim whose creator call never finished (the isolate died) is retried after this long */
const STALE_CLAIM_MS = 15 * 60_000;

interface DueRow {
  id: string;
  tenantId: string;
  campaignId: string;
  contactId: string;
  locationId: string;
  originSolicitationId: string;
  lastStepIndex: number;
  nextStepIndex: number;
  startedAt: string;
  dueAt: string;
  contactFound: number | null;
  isSuppressed: number | null;
  anonymizedAt: string | null;
  campaignActive: number | null;
  campaignEndsAt: string | null;
  stepChannel: MessageChannel | null;
  consentStatus: string | null;
  converted: number;
}

/** Due active enrollments after a (due_at, id) cursor, with what decides their fate: one index range. */
const dueQuery = (now: string, after: { dueAt: string; id: string } | null, limit: number) => sql`
  select e.id as id, e.tenant_id as tenantId, e.campaign_id as campaignId, e.contact_id as contactId,
    e.location_id as locationId, e.origin_solicitation_id as originSolicitationId,
    e.last_step_index as lastStepIndex, e.next_step_index as nextStepIndex, e.started_at as startedAt, e.due_at as dueAt,
    c.id is not null as contactFound, c.is_suppressed as isSuppressed, c.anonymized_at as anonymizedAt,
    camp.is_active as campaignActive, camp.ends_at as campaignEndsAt, st.channel as stepChannel,
    (select cr.status from consent_records cr where cr.contact_id = e.contact_id and cr.channel = st.channel
      order by cr.seq desc limit 1) as consentStatus,
    exists (select 1 from solicitations s where s.converted_at is not null and (s.id = e.origin_solicitation_id
      or s.id in (select r.solicitation_id from sequence_step_runs r where r.enrollment_id = e.id))) as converted
  from sequence_enrollments e
  left join contacts c on c.id = e.contact_id and c.tenant_id = e.tenant_id
  left join campaigns camp on camp.id = e.campaign_id and camp.tenant_id = e.tenant_id
  left join sequence_steps st on st.campaign_id = e.campaign_id and st.step_index = e.next_step_index
  where e.status = 'active' and e.due_at <= ${now}
    ${after ? sql`and (e.due_at > ${after.dueAt} or (e.due_at = ${after.dueAt} and e.id > ${after.id}))` : sql``}
  order by e.due_at, e.id
  limit ${limit}`;

function stopReasonOf(r: DueRow, now: string): StopReason | null {
  if (!r.contactFound || r.anonymizedAt) return "contact_erased";
  if (r.isSuppressed) return "suppressed";
  if (r.converted) return "converted";
  if (!r.campaignActive) return "campaign_inactive";
  if (r.campaignEndsAt && r.campaignEndsAt <= now) return "campaign_ended";
  if (r.consentStatus === "revoked") return "consent_revoked";
  return null;
}

/** Moves the enrollment past `stepIndex` (to the next step, or completed), guarded on its position. */
function advanceStatements(
  ctx: ServiceContext,
  r: DueRow,
  steps: StepDef[],
  stepIndex: number,
  extra: Record<string, unknown>,
) {
  const next = nextStep(steps, stepIndex, r.startedAt);
  const now = nowIso();
  return [
    ctx.db
      .update(sequenceEnrollments)
      .set(
        next
          ? { lastStepIndex: stepIndex, nextStepIndex: next.step.stepIndex, dueAt: next.dueAt, updatedAt: now }
          : { lastStepIndex: stepIndex, nextStepIndex: null, dueAt: null, status: "completed", updatedAt: now },
      )
      .where(
        and(
          eq(sequenceEnrollments.id, r.id),
          eq(sequenceEnrollments.nextStepIndex, r.nextStepIndex),
          eq(sequenceEnrollments.status, "active"),
        ),
      ),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: next ? "sequence.step_created" : "sequence.completed",
      resourceType: "sequence_enrollment",
      resourceId: r.id,
      nextState: {
        stepIndex,
        ...extra,
        nextStepIndex: next?.step.stepIndex ?? null,
        dueAt: next?.dueAt ?? null,
        status: next ? "active" : "completed",
      },
    }),
  ];
}

/**
 * Claims (enrollment, step): true when this sweep owns it; a stale unfinished claim is taken over.
 * Claims use the wall clock, not the sweep's scheduled time, so overlapping sweeps agree on staleness.
 */
async function claim(ctx: ServiceContext, r: DueRow): Promise<boolean> {
  const now = new Date();
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS).toISOString();
  const rows = await ctx.db
    .insert(sequenceStepRuns)
    .values({
      enrollmentId: r.id,
      stepIndex: r.nextStepIndex,
      tenantId: r.tenantId,
      solicitationId: null,
      claimedAt: now.toISOString(),
    })
    .onConflictDoUpdate({
      target: [sequenceStepRuns.enrollmentId, sequenceStepRuns.stepIndex],
      set: { claimedAt: now.toISOString() },
      setWhere: sql`${sequenceStepRuns.solicitationId} is null and ${sequenceStepRuns.claimedAt} < ${staleBefore}`,
    })
    .returning({ id: sequenceStepRuns.enrollmentId });
  return rows.length > 0;
}

const STOPPING_BLOCKS = new Set(["SUPPRESSED", "NO_CONSENT"]);

async function processDue(
  env: Env,
  r: DueRow,
  now: Date,
  stepsCache: Map<string, StepDef[]>,
  create: SolicitationCreator,
): Promise<void> {
  const ctx = await systemContext(env, r.tenantId, "sequence-sweep");
  try {
    const reason = stopReasonOf(r, now.toISOString());
    if (reason) {
      await stopEnrollments(ctx, { solicitationId: r.originSolicitationId }, reason);
      return;
    }
    const key = `${r.tenantId}/${r.campaignId}`;
    let steps = stepsCache.get(key);
    if (!steps) {
      steps = await sequenceStepsOf(ctx, r.campaignId);
      stepsCache.set(key, steps);
    }
    const step = steps.find((s) => s.stepIndex === r.nextStepIndex);
    if (!step) {
      // the sequence was edited since: move on to whatever now follows the last step created
      await commit(ctx, advanceStatements(ctx, r, steps, r.lastStepIndex, { skippedStepIndex: r.nextStepIndex }));
      return;
    }
    // another sweep owns this step, or already created it (and advanced in the same batch)
    if (!(await claim(ctx, r))) return;
    let created: CreatedSolicitation;
    try {
      created = await create(ctx, {
        locationId: r.locationId,
        contactId: r.contactId,
        campaignId: r.campaignId,
        channel: step.channel,
        templateId: step.templateId,
        sequenceStepIndex: step.stepIndex,
        idempotencyKey: `sequence:${r.id}:${step.stepIndex}`,
        metadata: { sequenceEnrollmentId: r.id, originSolicitationId: r.originSolicitationId },
      });
    } catch (err) {
      // release the claim: the next sweep tries again
      await ctx.db
        .delete(sequenceStepRuns)
        .where(and(eq(sequenceStepRuns.enrollmentId, r.id), eq(sequenceStepRuns.stepIndex, step.stepIndex)));
      throw err;
    }
    const stop = created.status === "BLOCKED" && created.blockedReason && STOPPING_BLOCKS.has(created.blockedReason);
    await commit(ctx, [
      ctx.db
        .update(sequenceStepRuns)
        .set({ solicitationId: created.id })
        .where(and(eq(sequenceStepRuns.enrollmentId, r.id), eq(sequenceStepRuns.stepIndex, step.stepIndex))),
      ...advanceStatements(ctx, r, steps, step.stepIndex, {
        solicitationId: created.id,
        solicitationStatus: created.status,
      }),
    ]);
    if (stop) await stopEnrollments(ctx, { solicitationId: r.originSolicitationId }, "blocked");
  } finally {
    await ctx.settle();
  }
}

/**
 * The drip sweep (every 5 minutes): due enrollments in batches of BATCH, at most MAX_BATCHES per
 * run; each gets its next step created at most once (see claim), or is stopped or completed.
 * Returns how many due enrollments it looked at.
 */
export async function runSequenceSweep(env: Env, db: ShardDb, now: Date, create: SolicitationCreator): Promise<number> {
  const stepsCache = new Map<string, StepDef[]>();
  let after: { dueAt: string; id: string } | null = null;
  let handled = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const rows: DueRow[] = await db.all<DueRow>(dueQuery(now.toISOString(), after, BATCH));
    for (const r of rows) {
      try {
        await processDue(env, r, now, stepsCache, create);
      } catch (err) {
        log.error("sequence step failed", { enrollmentId: r.id, error: String(err) });
      }
      handled++;
    }
    if (rows.length < BATCH) break;
    after = { dueAt: rows.at(-1)!.dueAt, id: rows.at(-1)!.id };
  }
  return handled;
}

import { and, asc, eq, inArray, or } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import {
  type MessageChannel,
  sequenceEnrollments,
  sequenceStepRuns,
  sequenceSteps,
  type solicitations,
} from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { addDays, nowIso } from "../../lib/time";

export interface StepDef {
  stepIndex: number;
  channel: MessageChannel;
  delayDays: number;
  templateId: string | null;
}

export type StopReason =
  | "converted"
  | "unsubscribed"
  | "suppressed"
  | "contact_erased"
  | "consent_revoked"
  | "campaign_inactive"
  | "campaign_ended"
  | "blocked";

export async function sequenceStepsOf(ctx: ServiceContext, campaignId: string): Promise<StepDef[]> {
  return ctx.db
    .select({
      stepIndex: sequenceSteps.stepIndex,
      channel: sequenceSteps.channel,
      delayDays: sequenceSteps.delayDays,
      templateId: sequenceSteps.templateId,
    })
    .from(sequenceSteps)
    .where(and(eq(sequenceSteps.tenantId, ctx.tenantId), eq(sequenceSteps.campaignId, campaignId)))
    .orderBy(asc(sequenceSteps.stepIndex));
}

/** The step after `index`, and when it is due: step n is due at step 0's sentAt + its delayDays. */
export function nextStep(steps: StepDef[], index: number, startedAt: string): { step: StepDef; dueAt: string } | null {
  const step = steps.find((s) => s.stepIndex > index);
  return step ? { step, dueAt: addDays(new Date(startedAt), step.delayDays).toISOString() } : null;
}

/** The fields of a solicitation that enrollment looks at. */
export type EnrollableSolicitation = Pick<
  typeof solicitations.$inferSelect,
  "id" | "tenantId" | "campaignId" | "contactId" | "locationId" | "sequenceStepIndex" | "status" | "sentAt"
>;

/**
 * Starts the drip for a sent step-0 solicitation: call it when a solicitation becomes SENT (the
 * solicitation.sent event handler in jobs.ts also does, so wiring is automatic). A solicitation is
 * step 0 when its campaign has a sequence and it carries no step index, or the sequence's first one.
 * Idempotent: one enrollment per solicitation. Returns the enrollment id, or null when there is
 * nothing to enroll (no campaign, no sequence, not sent, a later step, a one-step sequence).
 */
export async function enrollInSequence(ctx: ServiceContext, s: EnrollableSolicitation): Promise<string | null> {
  if (s.tenantId !== ctx.tenantId || !s.campaignId || !s.sentAt) return null;
  if (s.status !== "SENT" && s.status !== "DELIVERED") return null;
  const steps = await sequenceStepsOf(ctx, s.campaignId);
  if (!steps.length) return null;
  const originIndex = s.sequenceStepIndex ?? steps[0]!.stepIndex;
  if (originIndex !== steps[0]!.stepIndex) return null;
  const next = nextStep(steps, originIndex, s.sentAt);
  if (!next) return null;

  const existing = await ctx.db
    .select({ id: sequenceEnrollments.id })
    .from(sequenceEnrollments)
    .where(eq(sequenceEnrollments.originSolicitationId, s.id))
    .get();
  if (existing) return existing.id;

  const now = nowIso();
  const id = newId();
  await commit(ctx, [
    ctx.db
      .insert(sequenceEnrollments)
      .values({
        id,
        tenantId: ctx.tenantId,
        campaignId: s.campaignId,
        contactId: s.contactId,
        locationId: s.locationId,
        originSolicitationId: s.id,
        status: "active",
        stopReason: null,
        lastStepIndex: originIndex,
        nextStepIndex: next.step.stepIndex,
        dueAt: next.dueAt,
        startedAt: s.sentAt,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing(),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "sequence.enrolled",
      resourceType: "sequence_enrollment",
      resourceId: id,
      nextState: {
        campaignId: s.campaignId,
        contactId: s.contactId,
        originSolicitationId: s.id,
        nextStepIndex: next.step.stepIndex,
        dueAt: next.dueAt,
      },
    }),
  ]);
  return id;
}

type StopScope = { contactId: string } | { solicitationId: string };

const scopeCondition = (ctx: ServiceContext, scope: StopScope) =>
  "contactId" in scope
    ? and(eq(sequenceEnrollments.tenantId, ctx.tenantId), eq(sequenceEnrollments.contactId, scope.contactId))
    : and(
        eq(sequenceEnrollments.tenantId, ctx.tenantId),
        or(
          eq(sequenceEnrollments.originSolicitationId, scope.solicitationId),
          inArray(
            sequenceEnrollments.id,
            ctx.db
              .select({ id: sequenceStepRuns.enrollmentId })
              .from(sequenceStepRuns)
              .where(eq(sequenceStepRuns.solicitationId, scope.solicitationId)),
          ),
        ),
      );

/**
 * The statements that stop a contact's (or a solicitation's) active enrollments, with one audit
 * row each, for a caller's batch; none when nothing is active.
 */
export async function stopEnrollmentStatements(
  ctx: ServiceContext,
  scope: StopScope,
  reason: StopReason,
): Promise<BatchItem<"sqlite">[]> {
  const active = await ctx.db
    .select({ id: sequenceEnrollments.id })
    .from(sequenceEnrollments)
    .where(and(scopeCondition(ctx, scope), eq(sequenceEnrollments.status, "active")));
  if (!active.length) return [];
  const ids = active.map((e) => e.id);
  return [
    ctx.db
      .update(sequenceEnrollments)
      .set({ status: "stopped", stopReason: reason, nextStepIndex: null, dueAt: null, updatedAt: nowIso() })
      .where(and(inArray(sequenceEnrollments.id, ids), eq(sequenceEnrollments.status, "active"))),
    ...ids.map((id) =>
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "sequence.stopped",
        resourceType: "sequence_enrollment",
        resourceId: id,
        nextState: { status: "stopped", stopReason: reason },
      }),
    ),
  ];
}

export async function stopEnrollments(ctx: ServiceContext, scope: StopScope, reason: StopReason): Promise<number> {
  const statements = await stopEnrollmentStatements(ctx, scope, reason);
  await commit(ctx, statements);
  return Math.max(0, statements.length - 1);
}

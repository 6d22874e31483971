import { and, asc, eq } from "drizzle-orm";
import { campaignSequences, sequenceSteps, templates } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { chunkRows } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { type TemplateRow, toTemplate } from "../templates/schemas";
import { usableTemplates } from "../templates/service";
import type { PutSequenceInput } from "./sequences.schemas";
import { findCampaignRow } from "./service";

type StepRow = typeof sequenceSteps.$inferSelect;

const stepFields = (s: StepRow) => ({
  stepIndex: s.stepIndex,
  channel: s.channel,
  delayDays: s.delayDays,
  templateId: s.templateId,
});
const toStep = (s: StepRow, template: TemplateRow | null | undefined) => ({
  ...stepFields(s),
  template: template ? toTemplate(template) : null,
});

const findSequenceRow = (ctx: ServiceContext, campaignId: string) =>
  ctx.db
    .select()
    .from(campaignSequences)
    .where(and(eq(campaignSequences.tenantId, ctx.tenantId), eq(campaignSequences.campaignId, campaignId)))
    .get();

async function loadSteps(ctx: ServiceContext, campaignId: string) {
  const rows = await ctx.db
    .select({ step: sequenceSteps, template: templates })
    .from(sequenceSteps)
    .leftJoin(templates, eq(templates.id, sequenceSteps.templateId))
    .where(and(eq(sequenceSteps.tenantId, ctx.tenantId), eq(sequenceSteps.campaignId, campaignId)))
    .orderBy(asc(sequenceSteps.stepIndex));
  return rows.map(({ step, template }) => ({ row: step, dto: toStep(step, template) }));
}

/** The campaign's sequence with its steps sorted by stepIndex, or null when it has none. */
export async function getSequence(ctx: ServiceContext, campaignId: string) {
  await findCampaignRow(ctx, campaignId);
  const seq = await findSequenceRow(ctx, campaignId);
  if (!seq) return null;
  const steps = await loadSteps(ctx, campaignId);
  return {
    id: seq.id,
    campaignId,
    name: seq.name,
    steps: steps.map((s) => s.dto),
    createdAt: seq.createdAt,
    updatedAt: seq.updatedAt,
  };
}

/** Creates or replaces the campaign's sequence: the steps given are the whole new set. */
export async function putSequence(ctx: ServiceContext, campaignId: string, input: PutSequenceInput) {
  const campaign = await findCampaignRow(ctx, campaignId);
  const offChannel = input.steps.flatMap((s, i) =>
    campaign.channels.includes(s.channel)
      ? []
      : [{ path: `steps.${i}.channel`, message: `The campaign does not use ${s.channel}` }],
  );
  if (offChannel.length) throw validationError(offChannel);
  const bound = await usableTemplates(
    ctx,
    input.steps.flatMap((s, i) =>
      s.templateId ? [{ path: `steps.${i}.templateId`, templateId: s.templateId, channel: s.channel }] : [],
    ),
  );

  const existing = await findSequenceRow(ctx, campaignId);
  const previousSteps = existing ? await loadSteps(ctx, campaignId) : [];
  const now = nowIso();
  const seq = {
    id: existing?.id ?? newId(),
    tenantId: ctx.tenantId,
    campaignId,
    name: input.name ?? existing?.name ?? `${campaign.name} sequence`,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  const steps: StepRow[] = [...input.steps]
    .sort((a, b) => a.stepIndex - b.stepIndex)
    .map((s) => ({
      tenantId: ctx.tenantId,
      campaignId,
      stepIndex: s.stepIndex,
      channel: s.channel,
      delayDays: s.delayDays,
      templateId: s.templateId ?? null,
    }));
  const inserts = chunkRows(sequenceSteps, steps).map((chunk) => ctx.db.insert(sequenceSteps).values(chunk));

  await commit(ctx, [
    ctx.db
      .insert(campaignSequences)
      .values(seq)
      .onConflictDoUpdate({ target: campaignSequences.campaignId, set: { name: seq.name, updatedAt: now } }),
    ctx.db
      .delete(sequenceSteps)
      .where(and(eq(sequenceSteps.tenantId, ctx.tenantId), eq(sequenceSteps.campaignId, campaignId))),
    ...inserts,
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: existing ? "campaign.sequence_replaced" : "campaign.sequence_created",
      resourceType: "campaign_sequence",
      resourceId: seq.id,
      previousState: existing ? { name: existing.name, steps: previousSteps.map((s) => stepFields(s.row)) } : null,
      nextState: { name: seq.name, steps: steps.map(stepFields) },
      metadata: { campaignId },
    }),
  ]);
  return {
    id: seq.id,
    campaignId,
    name: seq.name,
    steps: steps.map((s) => toStep(s, s.templateId ? bound.get(s.templateId) : null)),
    createdAt: seq.createdAt,
    updatedAt: seq.updatedAt,
  };
}

export async function deleteSequence(ctx: ServiceContext, campaignId: string) {
  await findCampaignRow(ctx, campaignId);
  const existing = await findSequenceRow(ctx, campaignId);
  if (!existing) throw notFound("Sequence");
  const previousSteps = await loadSteps(ctx, campaignId);
  await commit(ctx, [
    ctx.db
      .delete(sequenceSteps)
      .where(and(eq(sequenceSteps.tenantId, ctx.tenantId), eq(sequenceSteps.campaignId, campaignId))),
    ctx.db
      .delete(campaignSequences)
      .where(and(eq(campaignSequences.tenantId, ctx.tenantId), eq(campaignSequences.id, existing.id))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "campaign.sequence_deleted",
      resourceType: "campaign_sequence",
      resourceId: existing.id,
      previousState: { name: existing.name, steps: previousSteps.map((s) => stepFields(s.row)) },
      metadata: { campaignId },
    }),
  ]);
}

import { and, asc, desc, eq } from "drizzle-orm";
import { campaignTemplateBindings, templates } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { toTemplate } from "../templates/schemas";
import { usableTemplates } from "../templates/service";
import { type BindingRow, type CreateBindingInput, toBinding } from "./bindings.schemas";
import { findCampaignRow } from "./service";

/** The campaign's bindings with their templates: by channel, then priority (highest first), then age. */
export async function listBindings(ctx: ServiceContext, campaignId: string) {
  await findCampaignRow(ctx, campaignId);
  const rows = await ctx.db
    .select({ binding: campaignTemplateBindings, template: templates })
    .from(campaignTemplateBindings)
    .innerJoin(templates, eq(templates.id, campaignTemplateBindings.templateId))
    .where(
      and(eq(campaignTemplateBindings.tenantId, ctx.tenantId), eq(campaignTemplateBindings.campaignId, campaignId)),
    )
    .orderBy(
      asc(campaignTemplateBindings.channel),
      desc(campaignTemplateBindings.priority),
      asc(campaignTemplateBindings.createdAt),
      asc(campaignTemplateBindings.id),
    );
  return rows.map((r) => toBinding(r.binding, toTemplate(r.template)));
}

export async function createBinding(ctx: ServiceContext, campaignId: string, input: CreateBindingInput) {
  const campaign = await findCampaignRow(ctx, campaignId);
  if (!campaign.channels.includes(input.channel)) {
    throw validationError([{ path: "channel", message: `The campaign does not use ${input.channel}` }]);
  }
  const template = (
    await usableTemplates(ctx, [{ path: "templateId", templateId: input.templateId, channel: input.channel }])
  ).get(input.templateId)!;
  const row: BindingRow = {
    ...input,
    id: newId(),
    tenantId: ctx.tenantId,
    campaignId,
    activeFrom: input.activeFrom ?? null,
    activeTo: input.activeTo ?? null,
    createdAt: nowIso(),
  };
  try {
    await commit(ctx, [
      ctx.db.insert(campaignTemplateBindings).values(row),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "campaign.template_bound",
        resourceType: "campaign_template_binding",
        resourceId: row.id,
        nextState: row,
        metadata: { campaignId },
      }),
    ]);
  } catch (e) {
    if (isUniqueViolation(e))
      throw conflict("The template is already bound to this campaign for that channel, locale and variant");
    throw e;
  }
  return toBinding(row, toTemplate(template));
}

export async function deleteBinding(ctx: ServiceContext, campaignId: string, bindingId: string) {
  await findCampaignRow(ctx, campaignId);
  const where = and(
    eq(campaignTemplateBindings.id, bindingId),
    eq(campaignTemplateBindings.campaignId, campaignId),
    eq(campaignTemplateBindings.tenantId, ctx.tenantId),
  );
  const before = await ctx.db.select().from(campaignTemplateBindings).where(where).get();
  if (!before) throw notFound("Binding");
  await commit(ctx, [
    ctx.db.delete(campaignTemplateBindings).where(where),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "campaign.template_unbound",
      resourceType: "campaign_template_binding",
      resourceId: bindingId,
      previousState: before,
      metadata: { campaignId },
    }),
  ]);
}

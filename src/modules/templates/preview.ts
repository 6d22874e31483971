import { and, eq } from "drizzle-orm";
import type { MessageChannel } from "../../db/schema";
import { brands, locations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { validationError } from "../../lib/errors";
import { tenantPublicBaseUrl } from "../white-label/resolve";
import { renderTemplate, type TemplateContent } from "./render";
import { checkedTokens, findTemplateRow } from "./service";
import { variablesOf } from "./variables.service";

const SAMPLE_CONTACT = { firstName: "Jane", lastName: "Doe", fullName: "Jane Doe" };

/** Sample values for a preview: a sample contact and links, and the location's values when one is given. */
async function previewValues(
  ctx: ServiceContext,
  tokens: string[],
  locationId: string | undefined,
): Promise<Record<string, string>> {
  // the host the tenant's real links will use (its custom hostname when it has one)
  const base = await tenantPublicBaseUrl(ctx.env, ctx.tenantId);
  const values: Record<string, string> = {
    ...SAMPLE_CONTACT,
    locationName: "Sample Location",
    brandName: "Sample Brand",
    reviewLink: `${base}/v1/r/preview?redirect=1`,
    feedbackLink: `${base}/f/preview`,
    unsubscribeLink: `${base}/unsubscribe/preview`,
  };
  for (const t of tokens) values[t] ??= `[${t}]`;
  if (!locationId) return values;
  const loc = await ctx.db
    .select({ name: locations.name, brandName: brands.name })
    .from(locations)
    .leftJoin(brands, eq(brands.id, locations.brandId))
    .where(and(eq(locations.id, locationId), eq(locations.tenantId, ctx.tenantId)))
    .get();
  if (!loc) throw validationError([{ path: "locationId", message: "Unknown location" }]);
  return {
    ...values,
    locationName: loc.name,
    brandName: loc.brandName ?? values.brandName!,
    ...(await variablesOf(ctx, locationId)),
  };
}

export async function previewTemplate(ctx: ServiceContext, id: string, locationId?: string) {
  const t = await findTemplateRow(ctx, id);
  return renderTemplate(t, await previewValues(ctx, t.tokens, locationId), { channel: t.channel });
}

/**
 * Content not saved yet (an editor's fields), rendered as the preview renders a template: the same sample values,
 * the same refusal of an unknown token (400 naming the field) as saving it would meet.
 */
export async function previewContent(
  ctx: ServiceContext,
  input: Partial<TemplateContent> & { channel: MessageChannel; locationId?: string },
) {
  const content: TemplateContent = {
    subject: input.subject ?? null,
    bodyHtml: input.bodyHtml ?? null,
    bodyText: input.bodyText ?? null,
  };
  const tokens = await checkedTokens(ctx, content);
  return renderTemplate(content, await previewValues(ctx, tokens, input.locationId), { channel: input.channel });
}

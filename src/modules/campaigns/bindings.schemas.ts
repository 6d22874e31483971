import { z } from "@hono/zod-openapi";
import { type campaignTemplateBindings, MESSAGE_CHANNELS } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { Locale } from "../../lib/validators";
import { type TemplateDto, TemplateSchema } from "../templates/schemas";
import { IsoDateTime } from "./schemas";

export const BindingSchema = z
  .object({
    id: z.string(),
    campaignId: z.string(),
    templateId: z.string(),
    channel: z.enum(MESSAGE_CHANNELS),
    locale: z.string(),
    variantKey: z.string(),
    priority: z.number().int(),
    isControl: z.boolean(),
    activeFrom: DateTime.nullable(),
    activeTo: DateTime.nullable(),
    template: TemplateSchema,
  })
  .openapi("CampaignTemplateBinding");

export const CreateBindingBody = z
  .object({
    templateId: z.string().min(1),
    channel: z
      .enum(MESSAGE_CHANNELS)
      .openapi({ description: "must be the template's channel and one of the campaign's" }),
    locale: Locale.default("en-US"),
    variantKey: z.string().trim().min(1).max(64).default("control"),
    priority: z.number().int().min(-1000).max(1000).default(0).openapi({ description: "higher first" }),
    isControl: z.boolean().default(true),
    activeFrom: IsoDateTime.nullable().optional(),
    activeTo: IsoDateTime.nullable().optional(),
  })
  .refine((b) => !b.activeFrom || !b.activeTo || b.activeFrom < b.activeTo, {
    message: "activeTo must be after activeFrom",
    path: ["activeTo"],
  })
  .openapi("CreateCampaignTemplateBindingRequest");

export const BindingParams = z.object({ id: z.string().min(1).max(64), bindingId: z.string().min(1).max(64) });

export type CreateBindingInput = z.infer<typeof CreateBindingBody>;
export type BindingRow = typeof campaignTemplateBindings.$inferSelect;

export const toBinding = (b: BindingRow, template: TemplateDto) => ({
  id: b.id,
  campaignId: b.campaignId,
  templateId: b.templateId,
  channel: b.channel,
  locale: b.locale,
  variantKey: b.variantKey,
  priority: b.priority,
  isControl: b.isControl,
  activeFrom: b.activeFrom,
  activeTo: b.activeTo,
  template,
});

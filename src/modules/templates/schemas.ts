import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS, TEMPLATE_STATUSES, type templates } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { Locale } from "../../lib/validators";

export const Channel = z.enum(MESSAGE_CHANNELS);

export const TemplateSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    rootId: z.string().openapi({ description: "id of version 1; shared by every version of this template" }),
    name: z.string(),
    channel: Channel,
    status: z.enum(TEMPLATE_STATUSES),
    subject: z.string().nullable(),
    bodyHtml: z.string().nullable(),
    bodyText: z.string().nullable(),
    locale: z.string(),
    version: z.number().int(),
    tokens: z
      .array(z.string())
      .openapi({ description: "the {{token}} placeholders found in subject, bodyHtml and bodyText" }),
    createdByUserId: z.string(),
    approvedByUserId: z.string().nullable(),
    approvedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Template");

const Content = {
  subject: z.string().max(998).nullable().optional(),
  bodyHtml: z.string().max(100_000).nullable().optional(),
  bodyText: z.string().max(20_000).nullable().optional(),
};

export const CreateTemplateBody = z
  .object({ name: z.string().trim().min(1).max(200), channel: Channel, ...Content, locale: Locale.optional() })
  .openapi("CreateTemplateRequest");

export const UpdateTemplateBody = z
  .object({ name: z.string().trim().min(1).max(200).optional(), ...Content })
  .openapi("UpdateTemplateRequest");

export const TemplateListQuery = PageQuerySchema.extend({
  channel: Channel.optional(),
  status: z.enum(TEMPLATE_STATUSES).optional(),
  rootId: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: "only the versions of one template (the id of its version 1, `rootId`)" }),
});

export const PreviewQuery = z.object({
  locationId: z
    .string()
    .optional()
    .openapi({ description: "render with this location's name, brand and custom variables" }),
});

export const PreviewContentBody = z
  .object({ channel: Channel, ...Content, locationId: PreviewQuery.shape.locationId })
  .openapi("PreviewTemplateContentRequest");

export const PreviewSchema = z
  .object({
    subject: z.string().nullable(),
    html: z.string().nullable(),
    text: z.string().nullable(),
    unsubscribeLinkAppended: z
      .boolean()
      .openapi({ description: "email: the template lacks {{unsubscribeLink}}, so the link is appended" }),
    sms: z
      .object({ encoding: z.enum(["GSM-7", "UCS-2"]), units: z.number().int(), segments: z.number().int() })
      .nullable()
      .openapi({ description: "sms: encoding and segment count of the text as sent (opt-out text included)" }),
  })
  .openapi("TemplatePreview");

export type CreateTemplateInput = z.infer<typeof CreateTemplateBody>;
export type UpdateTemplateInput = z.infer<typeof UpdateTemplateBody>;
export type TemplateRow = typeof templates.$inferSelect;
export type TemplateDto = z.infer<typeof TemplateSchema>;

export const toTemplate = (t: TemplateRow): TemplateDto => ({
  id: t.id,
  tenantId: t.tenantId,
  rootId: t.rootId,
  name: t.name,
  channel: t.channel,
  status: t.status,
  subject: t.subject,
  bodyHtml: t.bodyHtml,
  bodyText: t.bodyText,
  locale: t.locale,
  version: t.version,
  tokens: t.tokens,
  createdByUserId: t.createdByUserId,
  approvedByUserId: t.approvedByUserId,
  approvedAt: t.approvedAt,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

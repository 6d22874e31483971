import { z } from "@hono/zod-openapi";
import { DELIVERY_OUTCOMES, MESSAGE_CHANNELS } from "../../db/schema";

// The campaign sends' request and answer shapes (campaigns/send.operations.ts).

const Id = z.string().min(1).max(64);

export const CampaignSendKeyHeader = z.object({
  "idempotency-key": z.string().min(1).max(255).optional().openapi({
    description: "Optional. The same key on a retry of this campaign's send creates only what the earlier call did not",
    example: "5f0c1f0e-6b1e-4d59-9d0b-2b7a4f3f9c11",
  }),
});

export const CampaignSendBody = z
  .object({
    locationId: Id.openapi({ description: "The location whose name, brand and variables render the message" }),
    channel: z.enum(MESSAGE_CHANNELS),
    templateId: Id.optional().openapi({
      description: "Overrides the campaign's bindings (email: gives the subject and HTML)",
    }),
    contactIds: z
      .array(Id)
      .min(1)
      .max(5000)
      .optional()
      .openapi({ description: "Omit for every non-suppressed contact that fits the channel" }),
    limit: z.number().int().min(1).max(5000).default(2000),
  })
  .strict()
  .openapi("CampaignSendRequest");

export type CampaignSendInput = z.infer<typeof CampaignSendBody>;

export const SendResultSchema = z
  .object({
    total: z.number().int().openapi({ description: "contacts considered" }),
    queued: z.number().int().openapi({ description: "solicitations created PENDING and queued for delivery" }),
    blocked: z.number().int().openapi({ description: "solicitations created BLOCKED by the policy" }),
    failed: z.number().int().openapi({ description: "contacts for which no solicitation could be created" }),
    errors: z.array(z.object({ contactId: z.string(), reason: z.string() })),
  })
  .openapi("SendResult");

export const SendBulkResultSchema = z
  .object({
    total: z.number().int().openapi({ description: "data rows in the file" }),
    queued: z.number().int().openapi({ description: "rows whose solicitation was created PENDING and queued" }),
    skipped: z.number().int().openapi({ description: "rows whose solicitation was created BLOCKED by the policy" }),
    failed: z.number().int().openapi({ description: "rows that could not be used (invalid, unknown location, ...)" }),
    errors: z.array(
      z.object({
        row: z.number().int().openapi({ description: "1-based data row (the header is row 0)" }),
        reason: z.string(),
      }),
    ),
  })
  .openapi("SendBulkResult");

export const SendBulkForm = z.object({
  contacts: z.instanceof(File).openapi({
    type: "string",
    format: "binary",
    description: "CSV: email, phone, firstName, lastName, locationId, channel",
  }),
  locationId: Id.optional(),
  channel: z.enum(MESSAGE_CHANNELS).optional(),
  templateId: Id.optional(),
});

export const CampaignSolicitationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(200),
  deliveryOutcome: z
    .enum(DELIVERY_OUTCOMES)
    .optional()
    .openapi({ description: "only the sends whose outcome is unknown (`unknown`); `total` then counts those" }),
});

import { z } from "@hono/zod-openapi";
import { CAMPAIGN_TYPES, type campaigns, MESSAGE_CHANNELS, REVIEW_DESTINATIONS } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { YELP_SOLICITING_FORBIDDEN } from "../../lib/review-solicitation";

/** An ISO 8601 date-time with an offset, stored normalised to UTC so it compares and sorts as text. */
export const IsoDateTime = z.iso
  .datetime({ offset: true })
  .transform((s) => new Date(s).toISOString())
  .openapi({ format: "date-time", example: "2026-01-01T00:00:00.000Z" });

export const Channels = z
  .array(z.enum(MESSAGE_CHANNELS))
  .min(1)
  .refine((a) => new Set(a).size === a.length, { message: "Channels must not repeat" });

export const CampaignSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    locationId: z.string().nullable(),
    brandId: z.string().nullable(),
    name: z.string(),
    type: z.enum(CAMPAIGN_TYPES),
    channels: z.array(z.enum(MESSAGE_CHANNELS)),
    isActive: z.boolean(),
    startsAt: DateTime.nullable(),
    endsAt: DateTime.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    reviewDestination: z.enum(REVIEW_DESTINATIONS),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Campaign");

const Refs = {
  locationId: z.string().min(1).nullable().optional().openapi({ description: "a location of this tenant" }),
  brandId: z
    .string()
    .min(1)
    .nullable()
    .optional()
    .openapi({ description: "a brand of this tenant (the location's, when both are given)" }),
  startsAt: IsoDateTime.nullable().optional(),
  endsAt: IsoDateTime.nullable().optional().openapi({ description: "after startsAt" }),
  metadata: z.record(z.string(), z.unknown()).optional(),
  reviewDestination: z
    .enum(REVIEW_DESTINATIONS)
    .refine((d) => d !== "yelp", { message: YELP_SOLICITING_FORBIDDEN })
    .optional()
    .openapi({ description: "default auto. `yelp` is refused (400): Yelp forbids asking for reviews" }),
};

export const CreateCampaignBody = z
  .object({ name: z.string().trim().min(1).max(200), type: z.enum(CAMPAIGN_TYPES), channels: Channels, ...Refs })
  .openapi("CreateCampaignRequest");

export const UpdateCampaignBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    type: z.enum(CAMPAIGN_TYPES).optional(),
    channels: Channels.optional(),
    ...Refs,
  })
  .openapi("UpdateCampaignRequest");

export const CampaignListQuery = PageQuerySchema.extend({
  locationId: z.string().optional(),
  brandId: z.string().optional(),
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

export type CreateCampaignInput = z.infer<typeof CreateCampaignBody>;
export type UpdateCampaignInput = z.infer<typeof UpdateCampaignBody>;
export type CampaignRow = typeof campaigns.$inferSelect;
export type CampaignDto = z.infer<typeof CampaignSchema>;

export const toCampaign = (c: CampaignRow): CampaignDto => ({
  id: c.id,
  tenantId: c.tenantId,
  locationId: c.locationId,
  brandId: c.brandId,
  name: c.name,
  type: c.type,
  channels: c.channels,
  isActive: c.isActive,
  startsAt: c.startsAt,
  endsAt: c.endsAt,
  metadata: c.metadata,
  reviewDestination: c.reviewDestination,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

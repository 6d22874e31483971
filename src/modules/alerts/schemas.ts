import { z } from "@hono/zod-openapi";
import {
  ALERT_SEND_KINDS,
  ALERT_SEND_STATUSES,
  type alertSends,
  type alertSubscriptions,
  DIGEST_FREQUENCIES,
} from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { TimeZone } from "../../lib/validators";
import { SiteType } from "../reviews/schemas";

export const AlertSubscriptionSchema = z
  .object({
    id: z.string(),
    userId: z.string().openapi({ description: "the user who receives the alerts" }),
    locationId: z.string().nullable().openapi({ description: "null: every location" }),
    instantEmail: z.boolean(),
    webhookId: z.string().nullable(),
    maxRating: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "instant alerts for ratings <= maxRating; null: any rating" }),
    siteTypes: z.array(z.string()),
    keywords: z.array(z.string()),
    digestFrequency: z.enum(DIGEST_FREQUENCIES),
    digestHour: z.number().int(),
    digestWeekday: z.number().int(),
    timeZone: z.string(),
    nextDigestAt: DateTime.nullable(),
    instantUnsubscribedAt: DateTime.nullable(),
    digestUnsubscribedAt: DateTime.nullable(),
    isActive: z.boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("AlertSubscription");

const fields = {
  locationId: z.string().min(1).max(64).nullable(),
  instantEmail: z.boolean().openapi({ description: "email each new review that passes the filters" }),
  webhookId: z
    .string()
    .min(1)
    .max(64)
    .nullable()
    .openapi({ description: "also post each alert (type review.alert) to this webhook of the tenant" }),
  maxRating: z.number().int().min(1).max(5).nullable(),
  siteTypes: z.array(SiteType).max(20).openapi({ description: "only these review sites; empty: every site" }),
  keywords: z
    .array(z.string().trim().toLowerCase().min(1).max(100))
    .max(50)
    .openapi({ description: "only reviews whose text contains one of them; empty: no keyword filter" }),
  digestFrequency: z.enum(DIGEST_FREQUENCIES),
  digestHour: z.number().int().min(0).max(23).openapi({ description: "local hour the digest is due (default 8)" }),
  digestWeekday: z
    .number()
    .int()
    .min(1)
    .max(7)
    .openapi({ description: "weekly digests: 1 = Monday .. 7 = Sunday (default 1)" }),
  timeZone: TimeZone.openapi({
    description: "default: the location's time zone, else the tenant's first location's, else UTC",
  }),
  isActive: z.boolean(),
};

type Channels = { instantEmail?: boolean; webhookId?: string | null; digestFrequency?: string };
export const deliversSomething = (s: Channels) =>
  Boolean(s.instantEmail || s.webhookId || (s.digestFrequency && s.digestFrequency !== "none"));
export const NOTHING_TO_DELIVER = { path: "instantEmail", message: "Turn on instantEmail, a webhookId or a digest" };

export const CreateAlertSubscriptionBody = z
  .object({
    userId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: "default: the caller; another user of the tenant needs manager or higher" }),
    locationId: fields.locationId.optional(),
    instantEmail: fields.instantEmail.default(true),
    webhookId: fields.webhookId.optional(),
    maxRating: fields.maxRating.optional(),
    siteTypes: fields.siteTypes.default([]),
    keywords: fields.keywords.default([]),
    digestFrequency: fields.digestFrequency.default("none"),
    digestHour: fields.digestHour.default(8),
    digestWeekday: fields.digestWeekday.default(1),
    timeZone: fields.timeZone.optional(),
    isActive: fields.isActive.default(true),
  })
  .strict()
  .refine(deliversSomething, { path: [NOTHING_TO_DELIVER.path], message: NOTHING_TO_DELIVER.message })
  .openapi("CreateAlertSubscriptionRequest", {
    example: { locationId: "loc_1", maxRating: 2, instantEmail: true, digestFrequency: "daily", digestHour: 8 },
  });

export const UpdateAlertSubscriptionBody = z
  .object(fields)
  .partial()
  .strict()
  .openapi("UpdateAlertSubscriptionRequest");

export const AlertSubscriptionListQuery = PageQuerySchema.extend({
  userId: z.string().optional().openapi({ description: "managers and up: another user's subscriptions" }),
  locationId: z.string().optional(),
});

export const AlertSendSchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    key: z.string().openapi({
      description: "review:{reviewId} for an instant alert, daily:{local date} or weekly:{local date} for a digest",
    }),
    kind: z.enum(ALERT_SEND_KINDS),
    status: z.enum(ALERT_SEND_STATUSES),
    periodStart: DateTime.nullable(),
    periodEnd: DateTime.nullable(),
    summary: z.record(z.string(), z.unknown()),
    error: z.string().nullable(),
    createdAt: DateTime,
    sentAt: DateTime.nullable(),
  })
  .openapi("AlertSend");

export type AlertSubscriptionRow = typeof alertSubscriptions.$inferSelect;
export type AlertSendRow = typeof alertSends.$inferSelect;
export type CreateAlertSubscriptionInput = z.infer<typeof CreateAlertSubscriptionBody>;
export type UpdateAlertSubscriptionInput = z.infer<typeof UpdateAlertSubscriptionBody>;

export const toAlertSubscription = (r: AlertSubscriptionRow) => ({
  id: r.id,
  userId: r.userId,
  locationId: r.locationId,
  instantEmail: r.instantEmail,
  webhookId: r.webhookId,
  maxRating: r.maxRating,
  siteTypes: r.siteTypes,
  keywords: r.keywords,
  digestFrequency: r.digestFrequency,
  digestHour: r.digestHour,
  digestWeekday: r.digestWeekday,
  timeZone: r.timeZone,
  nextDigestAt: r.nextDigestAt,
  instantUnsubscribedAt: r.instantUnsubscribedAt,
  digestUnsubscribedAt: r.digestUnsubscribedAt,
  isActive: r.isActive,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const toAlertSend = (r: AlertSendRow) => ({
  id: r.id,
  subscriptionId: r.subscriptionId,
  key: r.key,
  kind: r.kind,
  status: r.status,
  periodStart: r.periodStart,
  periodEnd: r.periodEnd,
  summary: r.summary,
  error: r.error,
  createdAt: r.createdAt,
  sentAt: r.sentAt,
});

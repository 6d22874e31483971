import { z } from "@hono/zod-openapi";
import { REVIEW_STATUSES, type reviews, SENTIMENTS, SITE_TYPES } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { HttpUrl } from "../../lib/validators";

/**
 * The review sites, from the spec (Review.siteType "google, yelp, facebook, first_party"; review.list
 * adds tripadvisor and trustpilot). THE definition of a siteType input: REST (ingest, list, analytics,
 * SLA filters), the MCP skills and the agent tools all take this one (test/mcp/input-parity.test.ts).
 */
export const SiteType = z
  .enum(SITE_TYPES)
  .openapi({ example: "google", description: "the review site; first_party for reviews collected by this service" });

export const ReviewSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    locationId: z.string(),
    solicitationId: z.string().nullable(),
    siteType: z.string().openapi({ example: "google" }),
    externalReviewId: z.string().nullable(),
    rating: z.number().min(1).max(5).nullable(),
    ratingMax: z.number().nullable(),
    text: z.string().nullable(),
    authorName: z.string().nullable(),
    authorExternalId: z.string().nullable(),
    language: z.string().nullable().openapi({ description: "ISO 639-1; detected from the text when not given" }),
    sentiment: z.enum(SENTIMENTS).nullable(),
    sentimentScore: z.number().nullable().openapi({ description: "-1..1, rating and text combined" }),
    topics: z.array(z.string()),
    status: z.enum(REVIEW_STATUSES).openapi({ description: "new until a response is published (responded)" }),
    isFirstParty: z.boolean(),
    isPublic: z.boolean(),
    externalUrl: z.string().nullable(),
    publishedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Review");

const text = (max: number) => z.string().trim().max(max);

export const IngestReviewBody = z
  .object({
    locationId: z.string().min(1),
    siteType: SiteType,
    solicitationId: z.string().min(1).max(64).nullable().optional(),
    externalReviewId: text(255)
      .min(1)
      .nullable()
      .optional()
      .openapi({ description: "re-ingesting the same (siteType, externalReviewId) updates the review" }),
    rating: z.number().min(1).max(5).nullable().optional().openapi({ description: "1..5 stars" }),
    ratingMax: z
      .number()
      .positive()
      .max(100)
      .nullable()
      .optional()
      .openapi({ description: "the site's scale, recorded as given" }),
    text: text(20_000).nullable().optional(),
    authorName: text(200).nullable().optional(),
    authorExternalId: text(255).nullable().optional(),
    language: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/, "ISO 639 code, e.g. en")
      .nullable()
      .optional(),
    isFirstParty: z.boolean().optional().openapi({ description: "default: siteType is first_party" }),
    isPublic: z.boolean().optional(),
    topics: z
      .array(text(60).min(1))
      .max(20)
      .optional()
      .openapi({ description: "extracted from the text when not supplied" }),
    externalUrl: HttpUrl.nullable().optional(),
    publishedAt: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .openapi("IngestReviewRequest");

const Bool = z.enum(["true", "false"]).transform((v) => v === "true");

export const ReviewListQuery = PageQuerySchema.extend({
  locationId: z.string().optional(),
  siteType: SiteType.optional(),
  sentiment: z.enum(SENTIMENTS).optional(),
  status: z.enum(REVIEW_STATUSES).optional(),
  ratingMin: z.coerce.number().min(1).max(5).optional(),
  ratingMax: z.coerce.number().min(1).max(5).optional(),
  dateFrom: z.iso.date().optional().openapi({ description: "inclusive, on publishedAt (else createdAt), UTC" }),
  dateTo: z.iso.date().optional().openapi({ description: "inclusive, on publishedAt (else createdAt), UTC" }),
  isFirstParty: Bool.optional(),
})
  .refine((q) => q.ratingMin === undefined || q.ratingMax === undefined || q.ratingMin <= q.ratingMax, {
    message: "ratingMin must not exceed ratingMax",
    path: ["ratingMin"],
  })
  .refine((q) => !q.dateFrom || !q.dateTo || q.dateFrom <= q.dateTo, {
    message: "dateFrom must not be after dateTo",
    path: ["dateFrom"],
  });

export const SyncReviewsBody = z
  .object({ locationId: z.string().min(1).optional().openapi({ description: "only this location's connections" }) })
  .openapi("SyncReviewsRequest");

export const SyncResultSchema = z
  .object({
    queued: z.number().int(),
    bySite: z.record(z.string(), z.number().int()).openapi({ example: { google: 2, yelp: 1 } }),
    jobs: z.array(z.object({ integrationId: z.string(), siteType: z.string(), locationId: z.string().nullable() })),
  })
  .openapi("ReviewSyncResult");

export type IngestReviewInput = z.infer<typeof IngestReviewBody>;
export type ReviewListInput = z.infer<typeof ReviewListQuery>;
export type ReviewRow = typeof reviews.$inferSelect;
export type ReviewDto = z.infer<typeof ReviewSchema>;

export const toReview = (r: ReviewRow): ReviewDto => ({
  id: r.id,
  tenantId: r.tenantId,
  locationId: r.locationId,
  solicitationId: r.solicitationId,
  siteType: r.siteType,
  externalReviewId: r.externalReviewId,
  rating: r.rating,
  ratingMax: r.ratingMax,
  text: r.text,
  authorName: r.authorName,
  authorExternalId: r.authorExternalId,
  language: r.language,
  sentiment: r.sentiment,
  sentimentScore: r.sentimentScore,
  topics: r.topics,
  status: r.status,
  isFirstParty: r.isFirstParty,
  isPublic: r.isPublic,
  externalUrl: r.externalUrl,
  publishedAt: r.publishedAt,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

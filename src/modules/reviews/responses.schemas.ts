import { z } from "@hono/zod-openapi";
import { PROVIDER_REPLY_STATES, RESPONSE_STATUSES, type reviewResponses } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { type ReviewRow, ReviewSchema } from "./schemas";

export const ReviewResponseSchema = z
  .object({
    id: z.string(),
    reviewId: z.string(),
    text: z.string(),
    status: z.enum(RESPONSE_STATUSES),
    assignedToUserId: z.string().nullable(),
    rejectionReason: z.string().nullable(),
    aiGenerated: z.boolean(),
    submittedAt: DateTime.nullable(),
    decidedAt: DateTime.nullable(),
    publishedAt: DateTime.nullable(),
    publishedVia: z.string().nullable().openapi({
      description:
        "the review site it was posted to by API, local for first-party reviews, or manual when a person posted it by hand",
    }),
    publishedByUserId: z
      .string()
      .nullable()
      .openapi({ description: "the user who published it (null for an API key)" }),
    publishedUrl: z
      .string()
      .nullable()
      .openapi({ description: "where the reply posted by hand can be seen, when given" }),
    moderation: z
      .object({
        state: z.enum(PROVIDER_REPLY_STATES).openapi({
          description:
            "pending: held by the site's moderators (the response stays approved); active: live (published); rejected: refused (the response is rejected)",
        }),
        policyViolation: z
          .string()
          .nullable()
          .openapi({ description: "the policy the site says a rejected reply broke" }),
        checkedAt: DateTime.nullable(),
      })
      .nullable()
      .openapi({
        description:
          "the review site's own moderation of the reply (Google); null where the site does not moderate or nothing was sent",
      }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("ReviewResponse");

const ResponseText = z.string().trim().min(1).max(5000);

export const CreateResponseBody = z
  .object({
    text: ResponseText.optional().openapi({ description: "required unless useAi is true" }),
    assignedToUserId: z.string().min(1).nullable().optional(),
    useAi: z
      .boolean()
      .optional()
      .openapi({ description: "draft the text from the review and the brand's voice and tone" }),
  })
  .refine((b) => b.useAi === true || b.text !== undefined, { message: "Required unless useAi is true", path: ["text"] })
  .openapi("CreateReviewResponseRequest");

export const UpdateResponseBody = z
  .object({ text: ResponseText, assignedToUserId: z.string().min(1).nullable().optional() })
  .openapi("UpdateReviewResponseRequest");

export const PublishResponseBody = z
  .object({
    manual: z.boolean().optional().openapi({
      description:
        "true: the reply was posted by hand on the review site; record it as published without calling the site",
    }),
    externalUrl: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional()
      .openapi({ description: "with manual: where the posted reply can be seen" }),
  })
  .refine((b) => b.externalUrl === undefined || b.manual === true, {
    message: "Only with manual: true",
    path: ["externalUrl"],
  })
  .openapi("PublishReviewResponseRequest");

export type PublishResponseInput = z.infer<typeof PublishResponseBody>;

export const RejectResponseBody = z
  .object({ reason: z.string().trim().min(1).max(1000).optional() })
  .openapi("RejectReviewResponseRequest");

export const ReviewIdParam = z.object({ reviewId: z.string().min(1).max(64) });

/** The replies a queue lists: waiting for a decision (the default), approved and not yet live, or rejected. */
export const QUEUE_STATUSES = ["submitted", "approved", "rejected"] as const;

export const QueueQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  assignedToUserId: z.string().optional(),
  status: z
    .enum(QUEUE_STATUSES)
    .default("submitted")
    .openapi({
      description:
        "submitted: waiting for approval (the queue, default); approved: approved and not yet published (to publish, " +
        "or held by the site's moderators: moderation.state pending); rejected: by an approver or the site's moderators (rejectionReason)",
    }),
  include: z
    .enum(["review"])
    .optional()
    .openapi({
      description:
        "review: each reply with the review it answers (stars, text, author, site, location, date), what an approver " +
        "decides by; null for an API key without read:reviews (review content belongs to that scope)",
    }),
});

export const ApproveResponseBody = z
  .object({
    text: ResponseText.optional().openapi({
      description: "the approver's edit: replaces the reply's text as it is approved (edit, then approve, in one step)",
    }),
  })
  .openapi("ApproveReviewResponseRequest");

export const OverdueReviewSchema = ReviewSchema.extend({
  sla: z.object({
    ruleId: z.string(),
    ruleName: z.string(),
    dueAt: DateTime,
    escalateAt: DateTime,
    escalatedAt: DateTime.nullable(),
  }),
}).openapi("OverdueReview");

/** The review a reply answers, as an approver reads it (approval.list-pending): no more than deciding needs. */
export const AnsweredReviewSchema = ReviewSchema.pick({
  id: true,
  locationId: true,
  siteType: true,
  rating: true,
  ratingMax: true,
  text: true,
  authorName: true,
  externalUrl: true,
  publishedAt: true,
  status: true,
})
  .extend({ locationName: z.string().nullable().openapi({ description: "the location's name" }) })
  .openapi("AnsweredReview");

export const toAnsweredReview = (r: ReviewRow, locationName: string | null): z.infer<typeof AnsweredReviewSchema> => ({
  id: r.id,
  locationId: r.locationId,
  locationName,
  siteType: r.siteType,
  rating: r.rating,
  ratingMax: r.ratingMax,
  text: r.text,
  authorName: r.authorName,
  externalUrl: r.externalUrl,
  publishedAt: r.publishedAt,
  status: r.status,
});

export type CreateResponseInput = z.infer<typeof CreateResponseBody>;
export type UpdateResponseInput = z.infer<typeof UpdateResponseBody>;
export type ResponseRow = typeof reviewResponses.$inferSelect;

export const toResponse = (r: ResponseRow) => ({
  id: r.id,
  reviewId: r.reviewId,
  text: r.text,
  status: r.status,
  assignedToUserId: r.assignedToUserId,
  rejectionReason: r.rejectionReason,
  aiGenerated: r.aiGenerated,
  submittedAt: r.submittedAt,
  decidedAt: r.decidedAt,
  publishedAt: r.publishedAt,
  publishedVia: r.publishedVia,
  publishedByUserId: r.publishedByUserId,
  publishedUrl: r.publishedUrl,
  moderation: r.providerState
    ? { state: r.providerState, policyViolation: r.providerPolicyViolation, checkedAt: r.providerCheckedAt }
    : null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

import { z } from "@hono/zod-openapi";
import {
  INBOX_CHANNELS,
  INBOX_ITEM_TYPES,
  INBOX_STATUSES,
  type inboxItems,
  type inboxNotes,
  SENTIMENTS,
} from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { FeedbackSchema } from "../feedback/schemas";
import { ReviewResponseSchema } from "../reviews/responses.schemas";
import { ReviewSchema } from "../reviews/schemas";

export const InboxItemType = z.enum(INBOX_ITEM_TYPES);
export const InboxStatus = z.enum(INBOX_STATUSES);
export const InboxChannel = z.enum(INBOX_CHANNELS).openapi({
  description:
    "where the customer spoke: a review's site (google, yelp, facebook, tripadvisor, trustpilot, first_party), or for feedback " +
    "the channel of the review request it answered (email, sms, whatsapp)",
});

export const InboxItemSchema = z
  .object({
    id: z.string(),
    type: InboxItemType,
    status: InboxStatus,
    locationId: z.string().nullable(),
    channel: InboxChannel.nullable(),
    rating: z.number().nullable().openapi({ description: "review stars, or the feedback's rating (1..5) when given" }),
    excerpt: z.string().nullable().openapi({ description: "the first 160 characters of the review or feedback text" }),
    sentiment: z.enum(SENTIMENTS).nullable(),
    assignedToUserId: z.string().nullable(),
    tags: z.array(z.string()),
    escalatedAt: DateTime.nullable(),
    escalationReason: z.string().nullable(),
    escalatedBy: z
      .string()
      .nullable()
      .openapi({ description: "user or API key id; null for SLA and callback-request escalations" }),
    reviewId: z.string().nullable(),
    feedbackId: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("InboxItem");

export const InboxNoteSchema = z
  .object({
    id: z.string(),
    note: z.string(),
    authorId: z.string().nullable(),
    authorType: z.enum(["user", "api_key", "system"]),
    createdAt: DateTime,
  })
  .openapi("InboxNote");

export const InboxItemDetailSchema = InboxItemSchema.extend({
  notes: z.array(InboxNoteSchema).openapi({ description: "oldest first" }),
  review: z.union([ReviewSchema, z.null()]),
  responses: z.array(ReviewResponseSchema).openapi({
    description: "the review's response drafts and published responses, oldest first (empty for feedback)",
  }),
  feedback: FeedbackSchema.nullable(),
}).openapi("InboxItemDetail");

const Stars = z.coerce.number().min(1).max(5);

export const InboxListQuery = PageQuerySchema.extend({
  locationId: z.string().optional(),
  status: InboxStatus.optional(),
  type: InboxItemType.optional(),
  assignedToUserId: z.string().optional(),
  channel: InboxChannel.optional(),
  ratingMin: Stars.optional().openapi({
    description: "at least this many stars (1..5, inclusive); items without a rating never match a rating filter",
  }),
  ratingMax: Stars.optional().openapi({
    description: "at most this many stars (1..5, inclusive); ratingMin = ratingMax is one exact rating",
  }),
  pastSla: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .openapi({
      description:
        "true: only review items past their SLA (the review still has no response and the response window of an active " +
        "SLA rule covering it has passed: the reviews GET /v1/responses/overdue lists); false: every other item",
    }),
}).refine((q) => q.ratingMin === undefined || q.ratingMax === undefined || q.ratingMin <= q.ratingMax, {
  message: "ratingMin must not exceed ratingMax",
  path: ["ratingMin"],
});

export const InboxIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ description: "the inbox item id; with type, the review id or feedback id also works" }),
});
export const InboxTypeQuery = z.object({ type: InboxItemType.optional() });

export const SuccessSchema = z.object({ success: z.boolean() }).openapi("Success");

export const InboxTagsSetSchema = SuccessSchema.extend({ tags: z.array(z.string()) }).openapi("InboxTagsSet");

export const PatchInboxBody = z
  .object({ status: InboxStatus.optional(), type: InboxItemType.optional() })
  .openapi("UpdateInboxItemRequest");

export const AssignInboxBody = z
  .object({
    userId: z
      .string()
      .min(1)
      .max(64)
      .nullable()
      .openapi({ description: "a user holding a role in this tenant; null unassigns" }),
    type: InboxItemType.optional(),
  })
  .openapi("AssignInboxItemRequest");

export const NoteInboxBody = z
  .object({
    note: z.string().trim().min(1).max(5000),
    type: InboxItemType.optional().openapi({
      description: "with a review's or feedback's id instead of the item's: which one (as assign and tags take it)",
    }),
  })
  .openapi("AddInboxNoteRequest");

export const MAX_TAGS = 20;
/** One inbox tag: 1 to 40 characters once trimmed (POST /v1/inbox/{id}/tags, automation's add_tags). */
export const InboxTag = z.string().trim().min(1).max(40);
export const TagsInboxBody = z
  .object({
    tags: z
      .array(InboxTag)
      .max(MAX_TAGS)
      .openapi({ description: "replaces the item's tags; trimmed, duplicates (any case) dropped" }),
    type: InboxItemType.optional(),
  })
  .openapi("SetInboxTagsRequest");

export const EscalateInboxBody = z
  .object({ reason: z.string().trim().min(1).max(500).optional(), type: InboxItemType.optional() })
  .openapi("EscalateInboxItemRequest");

export const MAX_BULK_ITEMS = 200;
export const BulkStatusBody = z
  .object({
    itemIds: z.array(z.string().min(1).max(64)).min(1).max(MAX_BULK_ITEMS),
    status: InboxStatus,
  })
  .openapi("BulkInboxStatusRequest");

export type InboxRow = typeof inboxItems.$inferSelect;
export type NoteRow = typeof inboxNotes.$inferSelect;
export type InboxListInput = z.infer<typeof InboxListQuery>;

export const toInboxItem = (r: InboxRow) => ({
  id: r.id,
  type: r.type,
  status: r.status,
  locationId: r.locationId,
  channel: r.channel,
  rating: r.rating,
  excerpt: r.excerpt,
  sentiment: r.sentiment,
  assignedToUserId: r.assignedToUserId,
  tags: r.tags,
  escalatedAt: r.escalatedAt,
  escalationReason: r.escalationReason,
  escalatedBy: r.escalatedBy,
  reviewId: r.reviewId,
  feedbackId: r.feedbackId,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const toNote = (n: NoteRow) => ({
  id: n.id,
  note: n.note,
  authorId: n.authorId,
  authorType: n.authorType,
  createdAt: n.createdAt,
});

import { z } from "@hono/zod-openapi";
import {
  AUTO_REPLY_MODES,
  AUTO_REPLY_SOURCES,
  AUTO_REPLY_STATUSES,
  AUTO_REPLY_TEXT_CONDITIONS,
  type autoReplies,
  type autoReplyRules,
} from "../../../db/schema";
import { DateTime, PageQuerySchema } from "../../../lib/openapi";
import { SiteType } from "../schemas";

export const MIN_DELAY_MINUTES = 5;
export const MAX_DELAY_MINUTES = 24 * 60;

export const AutoReplyRuleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    locationId: z.string().nullable().openapi({ description: "null: every location" }),
    siteType: z.string().nullable().openapi({ description: "null: every review site" }),
    ratings: z.array(z.number().int()),
    allowLowRatings: z.boolean(),
    textCondition: z.enum(AUTO_REPLY_TEXT_CONDITIONS),
    keywords: z.array(z.string()),
    source: z.enum(AUTO_REPLY_SOURCES),
    template: z.string().nullable(),
    mode: z.enum(AUTO_REPLY_MODES),
    delayMinutes: z.number().int().nullable(),
    isActive: z.boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("AutoReplyRule");

const fields = {
  name: z.string().trim().min(1).max(200),
  locationId: z.string().min(1).max(64).nullable(),
  siteType: SiteType.nullable(),
  ratings: z
    .array(z.number().int().min(1).max(5))
    .min(1)
    .max(5)
    .openapi({ description: "the star ratings the rule answers; any of 1-3 needs allowLowRatings: true" }),
  allowLowRatings: z
    .boolean()
    .openapi({ description: "explicit consent to answer ratings of 3 or less automatically" }),
  textCondition: z
    .enum(AUTO_REPLY_TEXT_CONDITIONS)
    .openapi({ description: "any; empty: only reviews without text (stars only); present: only reviews with text" }),
  keywords: z
    .array(z.string().trim().toLowerCase().min(1).max(100))
    .max(50)
    .openapi({ description: "the text must contain one of them (case-insensitive); empty = no keyword condition" }),
  source: z.enum(AUTO_REPLY_SOURCES).openapi({
    description:
      "template: the rule's template with {{review.authorName}}, {{location.name}}, {{brand.name}}, ... tokens; engine: the drafting engine",
  }),
  template: z.string().trim().min(1).max(5000).nullable(),
  mode: z.enum(AUTO_REPLY_MODES).openapi({
    description:
      "approval: queue the draft for approval; auto_publish (needs the tenant's opt-in): publish after delayMinutes unless a person intervenes",
  }),
  delayMinutes: z
    .number()
    .int()
    .min(MIN_DELAY_MINUTES)
    .max(MAX_DELAY_MINUTES)
    .nullable()
    .openapi({ description: `auto_publish only: ${MIN_DELAY_MINUTES} to ${MAX_DELAY_MINUTES} minutes` }),
  isActive: z.boolean(),
};

type RuleShape = {
  ratings?: number[];
  allowLowRatings?: boolean;
  source?: string;
  template?: string | null;
  mode?: string;
  delayMinutes?: number | null;
};

/** The cross-field rules, checked on create and on the merged row of a PATCH. */
export function ruleIssues(r: RuleShape): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  if (r.ratings?.some((x) => x <= 3) && !r.allowLowRatings) {
    issues.push({
      path: "ratings",
      message: "Ratings of 3 or less are answered automatically only with allowLowRatings: true",
    });
  }
  if (r.source === "template" && !r.template)
    issues.push({ path: "template", message: "Required when source is template" });
  if (r.mode === "auto_publish" && (r.delayMinutes === null || r.delayMinutes === undefined)) {
    issues.push({ path: "delayMinutes", message: "Required when mode is auto_publish" });
  }
  if (r.mode === "approval" && r.delayMinutes !== null && r.delayMinutes !== undefined) {
    issues.push({ path: "delayMinutes", message: "Only for mode auto_publish" });
  }
  return issues;
}

const refineRule = (r: RuleShape, ctx: z.RefinementCtx) => {
  for (const i of ruleIssues(r)) ctx.addIssue({ code: "custom", path: [i.path], message: i.message });
};

export const CreateAutoReplyRuleBody = z
  .object({
    name: fields.name,
    locationId: fields.locationId.optional(),
    siteType: fields.siteType.optional(),
    ratings: fields.ratings,
    allowLowRatings: fields.allowLowRatings.default(false),
    textCondition: fields.textCondition.default("any"),
    keywords: fields.keywords.default([]),
    source: fields.source,
    template: fields.template.optional(),
    mode: fields.mode.default("approval"),
    delayMinutes: fields.delayMinutes.optional(),
    isActive: fields.isActive.default(true),
  })
  .strict()
  .superRefine(refineRule)
  .openapi("CreateAutoReplyRuleRequest", {
    example: {
      name: "Thank 5-star ratings without text",
      ratings: [5],
      textCondition: "empty",
      source: "template",
      template: "Thank you, {{review.authorName}}!",
      mode: "auto_publish",
      delayMinutes: 60,
    },
  });

export const UpdateAutoReplyRuleBody = z.object(fields).partial().strict().openapi("UpdateAutoReplyRuleRequest");

export const AutoReplyRuleListQuery = PageQuerySchema.extend({
  locationId: z.string().optional(),
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

export const AutoReplySettingsSchema = z
  .object({
    autoPublishEnabled: z
      .boolean()
      .openapi({ description: "the tenant's opt-in to rules that publish without approval" }),
    updatedAt: DateTime.nullable(),
  })
  .openapi("AutoReplySettings");
export const UpdateAutoReplySettingsBody = z
  .object({ autoPublishEnabled: z.boolean() })
  .strict()
  .openapi("UpdateAutoReplySettingsRequest");

export const AutoReplySchema = z
  .object({
    id: z.string(),
    ruleId: z.string(),
    reviewId: z.string(),
    responseId: z.string().nullable(),
    mode: z.enum(AUTO_REPLY_MODES),
    status: z.enum(AUTO_REPLY_STATUSES).openapi({
      description:
        "queued: waiting in the approval queue; scheduled: publishes at publishAt unless someone intervenes; cancelled: a person intervened (cancelReason)",
    }),
    publishAt: DateTime.nullable(),
    attempts: z.number().int(),
    cancelReason: z.string().nullable(),
    lastError: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("AutoReply");

export const AutoReplyListQuery = PageQuerySchema.extend({
  status: z.enum(AUTO_REPLY_STATUSES).optional(),
  reviewId: z.string().optional(),
});

export type AutoReplyRuleRow = typeof autoReplyRules.$inferSelect;
export type AutoReplyRow = typeof autoReplies.$inferSelect;
export type CreateAutoReplyRuleInput = z.infer<typeof CreateAutoReplyRuleBody>;
export type UpdateAutoReplyRuleInput = z.infer<typeof UpdateAutoReplyRuleBody>;

export const toAutoReplyRule = (r: AutoReplyRuleRow) => ({
  id: r.id,
  name: r.name,
  locationId: r.locationId,
  siteType: r.siteType,
  ratings: r.ratings,
  allowLowRatings: r.allowLowRatings,
  textCondition: r.textCondition,
  keywords: r.keywords,
  source: r.source,
  template: r.template,
  mode: r.mode,
  delayMinutes: r.delayMinutes,
  isActive: r.isActive,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const toAutoReply = (r: AutoReplyRow) => ({
  id: r.id,
  ruleId: r.ruleId,
  reviewId: r.reviewId,
  responseId: r.responseId,
  mode: r.mode,
  status: r.status,
  publishAt: r.publishAt,
  attempts: r.attempts,
  cancelReason: r.cancelReason,
  lastError: r.lastError,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

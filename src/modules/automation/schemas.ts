import { z } from "@hono/zod-openapi";
import type { automationRules, automationRuns } from "../../db/schema";
import { AUTOMATION_RUN_OUTCOMES, TENANT_ROLES } from "../../db/schema";
import { EVENT_TYPES } from "../../lib/events";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { Email } from "../../lib/validators";
import { InboxTag, MAX_TAGS } from "../inbox/schemas";

export const CONDITION_OPS = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "contains"] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

const Scalar = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

export const ConditionSchema = z
  .object({
    field: z.string().min(1).max(100).openapi({
      description: "dotted path into the event payload, e.g. rating or previous.sentiment",
      example: "rating",
    }),
    op: z.enum(CONDITION_OPS),
    value: z
      .union([Scalar, z.array(Scalar).max(100)])
      .openapi({ description: "an array for `in`; a scalar otherwise" }),
  })
  .strict()
  .openapi("AutomationCondition");

const Template = z.string().trim().min(1).max(4000).openapi({
  description:
    "text with {{tokens}}: {{data.<field>}}, {{event.type}}, {{event.id}}, {{location.name}}, {{brand.name}}, {{review.authorName}}, {{review.rating}}, {{review.text}}, {{review.siteType}}",
});

const SendWebhookConfig = z.object({ url: z.string().trim().min(1).max(2048) }).strict();
const AssignInboxConfig = z.object({ userId: z.string().min(1).max(64) }).strict();
const AddTagsConfig = z.object({ tags: z.array(InboxTag).min(1).max(MAX_TAGS) }).strict();
const ResponseDraftConfig = z
  .object({ mode: z.enum(["template", "ai"]), text: Template.optional() })
  .strict()
  .refine((c) => c.mode === "ai" || c.text !== undefined, {
    message: "text is required when mode is template",
    path: ["text"],
  });
const SendSolicitationConfig = z
  .object({
    channel: z.enum(["email", "sms", "whatsapp"]),
    campaignId: z.string().min(1).max(64).optional(),
    templateId: z.string().min(1).max(64).optional(),
  })
  .strict();
const NotifyEmailConfig = z
  .object({
    to: z.array(Email).max(10).optional(),
    toRole: z
      .enum(TENANT_ROLES)
      .optional()
      .openapi({ description: "every active user holding this role on the tenant" }),
    subject: Template.pipe(z.string().max(200)),
    text: Template,
  })
  .strict()
  .refine((c) => Boolean(c.to?.length || c.toRole), { message: "to or toRole is required", path: ["to"] });
const RecommendationConfig = z
  .object({
    type: z.string().trim().min(1).max(64),
    title: Template.pipe(z.string().max(200)),
    description: Template.optional(),
    priority: z.enum(["low", "medium", "high", "critical"]).default("medium"),
    actionPayload: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export const ACTION_CONFIGS = {
  send_webhook: SendWebhookConfig,
  assign_inbox: AssignInboxConfig,
  add_tags: AddTagsConfig,
  create_response_draft: ResponseDraftConfig,
  send_solicitation: SendSolicitationConfig,
  notify_email: NotifyEmailConfig,
  create_recommendation: RecommendationConfig,
} as const;
export type ActionType = keyof typeof ACTION_CONFIGS;
export const ACTION_TYPES = Object.keys(ACTION_CONFIGS) as ActionType[];

export const ActionSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("send_webhook"), config: SendWebhookConfig }).strict(),
    z.object({ type: z.literal("assign_inbox"), config: AssignInboxConfig }).strict(),
    z.object({ type: z.literal("add_tags"), config: AddTagsConfig }).strict(),
    z.object({ type: z.literal("create_response_draft"), config: ResponseDraftConfig }).strict(),
    z.object({ type: z.literal("send_solicitation"), config: SendSolicitationConfig }).strict(),
    z.object({ type: z.literal("notify_email"), config: NotifyEmailConfig }).strict(),
    z.object({ type: z.literal("create_recommendation"), config: RecommendationConfig }).strict(),
  ])
  .openapi("AutomationAction");
export type ActionInput = z.infer<typeof ActionSchema>;

export const AutomationRuleSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    triggerEventType: z.string().openapi({ example: "review.negative" }),
    locationId: z.string().nullable(),
    brandId: z.string().nullable(),
    isActive: z.boolean(),
    conditions: z.array(ConditionSchema),
    actions: z.array(z.object({ type: z.string(), config: z.record(z.string(), z.unknown()) })),
    hasSigningSecret: z
      .boolean()
      .openapi({ description: "true when send_webhook requests are signed with the rule's own whsec_ secret" }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("AutomationRule");

export const AutomationRuleWithSecretSchema = AutomationRuleSchema.extend({
  signingSecret: z.string().optional().openapi({
    description: "whsec_ secret for the rule's send_webhook actions; present only in the response that created it",
  }),
}).openapi("AutomationRuleWithSecret");

const Conditions = z.array(ConditionSchema).max(20);
const Actions = z.array(ActionSchema).min(1).max(10);

export const CreateRuleBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    triggerEventType: z.enum(EVENT_TYPES),
    locationId: z.string().min(1).max(64).nullable().optional(),
    brandId: z.string().min(1).max(64).nullable().optional(),
    isActive: z.boolean().optional(),
    conditions: Conditions.default([]),
    actions: Actions,
  })
  .strict()
  .openapi("CreateAutomationRuleRequest");

export const UpdateRuleBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    triggerEventType: z.enum(EVENT_TYPES),
    locationId: z.string().min(1).max(64).nullable(),
    brandId: z.string().min(1).max(64).nullable(),
    isActive: z.boolean(),
    conditions: Conditions,
    actions: Actions,
  })
  .partial()
  .strict()
  .openapi("UpdateAutomationRuleRequest");

export const RuleListQuery = PageQuerySchema.extend({
  triggerEventType: z.enum(EVENT_TYPES).optional(),
});

export const AutomationRunSchema = z
  .object({
    id: z.string(),
    ruleId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    outcome: z.enum(AUTOMATION_RUN_OUTCOMES),
    actions: z.array(
      z.object({
        type: z.string(),
        outcome: z.enum(["succeeded", "failed"]),
        result: z.record(z.string(), z.unknown()).optional(),
        error: z.string().optional(),
      }),
    ),
    error: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("AutomationRun");

export type CreateRuleInput = z.infer<typeof CreateRuleBody>;
export type UpdateRuleInput = z.infer<typeof UpdateRuleBody>;
export type RuleRow = typeof automationRules.$inferSelect;
export type RunRow = typeof automationRuns.$inferSelect;

export const toRule = (r: RuleRow) => ({
  id: r.id,
  tenantId: r.tenantId,
  name: r.name,
  triggerEventType: r.triggerEventType,
  locationId: r.locationId,
  brandId: r.brandId,
  isActive: r.isActive,
  conditions: r.conditions,
  actions: r.actions,
  hasSigningSecret: r.signingSecretEncrypted !== null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const toRun = (r: RunRow) => ({
  id: r.id,
  ruleId: r.ruleId,
  eventId: r.eventId,
  eventType: r.eventType,
  outcome: r.outcome,
  actions: r.actions,
  error: r.error,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

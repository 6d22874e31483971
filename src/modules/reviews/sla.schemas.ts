import { z } from "@hono/zod-openapi";
import { SENTIMENTS, type slaRules, TENANT_ROLES } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { SiteType } from "./schemas";

const SlaFilterSchema = z
  .object({
    rating: z.array(z.number().int().min(1).max(5)).min(1).max(5).optional(),
    siteType: z.array(SiteType).min(1).max(20).optional(),
    sentiment: z.array(z.enum(SENTIMENTS)).min(1).max(3).optional(),
    locationId: z.array(z.string().min(1)).min(1).max(100).optional(),
  })
  .strict()
  .openapi("SlaFilter", {
    description:
      "Which reviews the rule covers. Each given list must contain the review's value; an absent list matches every review.",
    example: { rating: [1, 2], siteType: ["google"] },
  });

export const SlaRuleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    filter: SlaFilterSchema,
    responseWindowHours: z.number().int(),
    escalateAfterHours: z.number().int(),
    escalateToRole: z.string().nullable(),
    isActive: z.boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("SlaRule");

const Hours = z
  .number()
  .int()
  .min(1)
  .max(24 * 365);

const fields = {
  name: z.string().trim().min(1).max(200),
  filter: SlaFilterSchema,
  responseWindowHours: Hours.openapi({
    description: "a review is overdue this many hours after it arrived without a published response",
  }),
  escalateAfterHours: Hours.openapi({
    description: "hours after arrival at which an overdue review escalates; at least responseWindowHours",
  }),
  escalateToRole: z
    .enum(TENANT_ROLES)
    .nullable()
    .openapi({ description: "tenant role whose users are emailed on escalation" }),
  isActive: z.boolean(),
};

const windowOrder = (b: { responseWindowHours?: number; escalateAfterHours?: number }) =>
  b.responseWindowHours === undefined ||
  b.escalateAfterHours === undefined ||
  b.escalateAfterHours >= b.responseWindowHours;
const windowIssue = {
  message: "escalateAfterHours must be at least responseWindowHours",
  path: ["escalateAfterHours"],
};

export const CreateSlaRuleBody = z
  .object({
    ...fields,
    filter: fields.filter.default({}),
    escalateToRole: fields.escalateToRole.optional(),
    isActive: fields.isActive.optional(),
  })
  .refine(windowOrder, windowIssue)
  .openapi("CreateSlaRuleRequest");

export const UpdateSlaRuleBody = z.object(fields).partial().openapi("UpdateSlaRuleRequest");

export const SlaRuleListQuery = PageQuerySchema.extend({
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

export { windowIssue, windowOrder };
export type CreateSlaRuleInput = z.infer<typeof CreateSlaRuleBody>;
export type UpdateSlaRuleInput = z.infer<typeof UpdateSlaRuleBody>;
export type SlaRuleRow = typeof slaRules.$inferSelect;

export const toSlaRule = (r: SlaRuleRow) => ({
  id: r.id,
  name: r.name,
  filter: r.filter,
  responseWindowHours: r.responseWindowHours,
  escalateAfterHours: r.escalateAfterHours,
  escalateToRole: r.escalateToRole,
  isActive: r.isActive,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "./columns";
import { brands, locations, tenants } from "./tenancy";

type Scalar = string | number | boolean | null;

export interface RuleCondition {
  field: string;
  op: "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "in" | "contains";
  value: Scalar | Scalar[];
}

export interface RuleAction {
  type: string;
  config: Record<string, unknown>;
}

/** "When an event of triggerEventType matches every condition (and the scope), run the actions." */
export const automationRules = sqliteTable(
  "automation_rules",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    triggerEventType: text("trigger_event_type").notNull(),
    locationId: text("location_id").references(() => locations.id),
    brandId: text("brand_id").references(() => brands.id),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    conditions: text("conditions", { mode: "json" }).$type<RuleCondition[]>().notNull(),
    actions: text("actions", { mode: "json" }).$type<RuleAction[]>().notNull(),
    /** whsec_ secret that signs the rule's send_webhook requests (sealed); shown once */
    signingSecretEncrypted: text("signing_secret_encrypted"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("automation_rules_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("automation_rules_trigger_idx").on(t.tenantId, t.triggerEventType, t.isActive),
    index("automation_rules_location_idx").on(t.locationId),
    index("automation_rules_brand_idx").on(t.brandId),
  ],
);

export const AUTOMATION_RUN_OUTCOMES = ["running", "succeeded", "partial", "failed", "skipped"] as const;
export type AutomationRunOutcome = (typeof AUTOMATION_RUN_OUTCOMES)[number];

export interface ActionOutcome {
  type: string;
  outcome: "succeeded" | "failed";
  result?: Record<string, unknown>;
  error?: string;
}

/** One evaluation of a rule that matched an event; unique per (rule, event), so a redelivered event never re-runs it. */
export const automationRuns = sqliteTable(
  "automation_runs",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    ruleId: text("rule_id")
      .notNull()
      .references(() => automationRules.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    outcome: text("outcome", { enum: AUTOMATION_RUN_OUTCOMES }).notNull(),
    actions: text("actions", { mode: "json" }).$type<ActionOutcome[]>().notNull(),
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("automation_runs_rule_created_idx").on(t.tenantId, t.ruleId, t.createdAt, t.id),
    index("automation_runs_rule_idx").on(t.ruleId),
    uniqueIndex("automation_runs_rule_event_uq").on(t.ruleId, t.eventId),
  ],
);

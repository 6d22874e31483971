import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { MESSAGE_CHANNELS, type MessageChannel } from "./outbox";
import { templates } from "./templates";
import { brands, locations, tenants } from "./tenancy";

export const CAMPAIGN_TYPES = ["one_time", "event_triggered", "scheduled_batch", "drip", "continuous"] as const;
export const REVIEW_DESTINATIONS = ["auto", "survey", "google", "yelp", "facebook", "kiosk", "feedback"] as const;

export const campaigns = sqliteTable(
  "campaigns",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    locationId: text("location_id").references(() => locations.id),
    brandId: text("brand_id").references(() => brands.id),
    name: text("name").notNull(),
    type: text("type", { enum: CAMPAIGN_TYPES }).notNull(),
    channels: text("channels", { mode: "json" }).$type<MessageChannel[]>().notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    startsAt: timestamp("starts_at"),
    endsAt: timestamp("ends_at"),
    metadata: jsonObject("metadata"),
    reviewDestination: text("review_destination", { enum: REVIEW_DESTINATIONS }).notNull().default("auto"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("campaigns_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("campaigns_location_idx").on(t.locationId),
    index("campaigns_brand_idx").on(t.brandId),
  ],
);

export const campaignTemplateBindings = sqliteTable(
  "campaign_template_bindings",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    campaignId: text("campaign_id")
      .notNull()
      .references(() => campaigns.id),
    templateId: text("template_id")
      .notNull()
      .references(() => templates.id),
    channel: text("channel", { enum: MESSAGE_CHANNELS }).notNull(),
    locale: text("locale").notNull().default("en-US"),
    variantKey: text("variant_key").notNull().default("control"),
    priority: integer("priority").notNull().default(0),
    isControl: integer("is_control", { mode: "boolean" }).notNull().default(true),
    activeFrom: timestamp("active_from"),
    activeTo: timestamp("active_to"),
    createdAt: createdAt(),
  },
  (t) => [
    index("bindings_campaign_idx").on(t.campaignId, t.channel, t.priority),
    index("bindings_template_idx").on(t.templateId),
    index("bindings_tenant_idx").on(t.tenantId),
    uniqueIndex("bindings_campaign_template_uq").on(t.campaignId, t.templateId, t.channel, t.locale, t.variantKey),
  ],
);

/** At most one sequence per campaign; its steps are keyed by (campaign, stepIndex). */
export const campaignSequences = sqliteTable(
  "campaign_sequences",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    campaignId: text("campaign_id")
      .notNull()
      .unique()
      .references(() => campaigns.id),
    name: text("name").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("sequences_tenant_idx").on(t.tenantId)],
);

export const sequenceSteps = sqliteTable(
  "sequence_steps",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    campaignId: text("campaign_id")
      .notNull()
      .references(() => campaigns.id),
    stepIndex: integer("step_index").notNull(),
    channel: text("channel", { enum: MESSAGE_CHANNELS }).notNull(),
    delayDays: integer("delay_days").notNull(),
    templateId: text("template_id").references(() => templates.id),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.stepIndex] }),
    index("sequence_steps_template_idx").on(t.templateId),
    index("sequence_steps_tenant_idx").on(t.tenantId),
  ],
);

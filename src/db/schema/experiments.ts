import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { campaigns } from "./campaigns";
import { createdAt, timestamp, updatedAt } from "./columns";
import { locations, tenants } from "./tenancy";

export const EXPERIMENT_STATUSES = ["draft", "running", "paused", "completed"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export interface ExperimentVariant {
  id: string;
  name: string;
  trafficPercent: number;
  templateId: string | null;
  config: Record<string, unknown>;
}

export const experiments = sqliteTable(
  "experiments",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    campaignId: text("campaign_id").references(() => campaigns.id),
    locationId: text("location_id").references(() => locations.id),
    name: text("name").notNull(),
    hypothesis: text("hypothesis").notNull(),
    status: text("status", { enum: EXPERIMENT_STATUSES }).notNull().default("draft"),
    /** the first variant is the control */
    variants: text("variants", { mode: "json" }).$type<ExperimentVariant[]>().notNull(),
    winnerVariantId: text("winner_variant_id"),
    startedAt: timestamp("started_at"),
    completedAt: timestamp("completed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("experiments_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("experiments_campaign_idx").on(t.campaignId),
    index("experiments_location_idx").on(t.locationId),
    // sends pick "the running experiment" of a campaign: there is at most one
    uniqueIndex("experiments_campaign_running_uq").on(t.campaignId).where(sql`status = 'running'`),
  ],
);

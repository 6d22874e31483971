import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { updatedAt } from "./columns";
import { tenants } from "./tenancy";

/** One row per tenant once saved; until then the defaults in modules/compliance apply. */
export const complianceConfigs = sqliteTable("compliance_configs", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  healthcareSafeMode: integer("healthcare_safe_mode", { mode: "boolean" }).notNull(),
  retentionDays: integer("retention_days").notNull(),
  requireDoubleOptIn: integer("require_double_opt_in", { mode: "boolean" }).notNull(),
  allowDataExport: integer("allow_data_export", { mode: "boolean" }).notNull(),
  allowDataDeletion: integer("allow_data_deletion", { mode: "boolean" }).notNull(),
  quietHoursStart: text("quiet_hours_start").notNull(),
  quietHoursEnd: text("quiet_hours_end").notNull(),
  frequencyCapDaily: integer("frequency_cap_daily").notNull(),
  frequencyCapWeekly: integer("frequency_cap_weekly").notNull(),
  requireEmailConsent: integer("require_email_consent", { mode: "boolean" }).notNull(),
  requireSmsOptIn: integer("require_sms_opt_in", { mode: "boolean" }).notNull(),
  updatedAt: updatedAt(),
});

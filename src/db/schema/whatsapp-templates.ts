import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp, updatedAt } from "./columns";

/** The scope of the platform's own WhatsApp Business Account (rows kept in the control database). */
export const PLATFORM_TEMPLATE_SCOPE = "platform";

/**
 * What the provider last told us about a WhatsApp template (Meta's `message_template_status_update`
 * and `template_category_update` webhooks). Sends stop while the status is not sendable (PAUSED,
 * REJECTED, DISABLED, ...), and a MARKETING template is never sent to a US (+1) number.
 * `tenant_id` is the tenant whose own WhatsApp account the template belongs to, or
 * PLATFORM_TEMPLATE_SCOPE for the platform's account (no foreign key for that reason).
 */
export const whatsappTemplates = sqliteTable(
  "whatsapp_templates",
  {
    tenantId: text("tenant_id").notNull(),
    provider: text("provider").notNull(),
    /** the template name as sent (Meta: name; lower-cased) */
    name: text("name").notNull(),
    /** the language code, normalised (en_us) */
    language: text("language").notNull(),
    providerTemplateId: text("provider_template_id"),
    /** Meta's event: APPROVED, PAUSED, REJECTED, DISABLED, FLAGGED, REINSTATED, ... ; null until one arrived */
    status: text("status"),
    reason: text("reason"),
    /** MARKETING, UTILITY or AUTHENTICATION */
    category: text("category"),
    /** an announced re-categorisation (Meta gives 24 h notice): applies from pendingCategoryAt */
    pendingCategory: text("pending_category"),
    pendingCategoryAt: timestamp("pending_category_at"),
    /** the provider's time of the last status / category event applied: older redeliveries change nothing */
    statusAt: timestamp("status_at"),
    categoryAt: timestamp("category_at"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.provider, t.name, t.language] })],
);

export type WhatsAppTemplateRow = typeof whatsappTemplates.$inferSelect;

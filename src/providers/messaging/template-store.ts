import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type WhatsAppTemplateRow, whatsappTemplates } from "../../db/schema";
import { failureOf, isUsNumber, type WhatsAppFailure } from "./whatsapp-rules";

/** Template statuses Meta will not send (its message_template_status_update events). */
export const UNSENDABLE_TEMPLATE_STATUSES = new Set([
  "PAUSED",
  "DISABLED",
  "REJECTED",
  "DELETED",
  "PENDING_DELETION",
  "ARCHIVED",
]);

/** Meta names templates in lower case; languages come as en_US or en-US: one key for both. */
export const templateKey = (name: string, language: string) => ({
  name: name.trim().toLowerCase(),
  language: language.trim().replace(/-/g, "_").toLowerCase(),
});

export const findTemplateState = (
  db: Db,
  scope: string,
  provider: string,
  name: string,
  language: string,
): Promise<WhatsAppTemplateRow | undefined> => {
  const k = templateKey(name, language);
  return db
    .select()
    .from(whatsappTemplates)
    .where(
      and(
        eq(whatsappTemplates.tenantId, scope),
        eq(whatsappTemplates.provider, provider),
        eq(whatsappTemplates.name, k.name),
        eq(whatsappTemplates.language, k.language),
      ),
    )
    .get();
};

/** The category that applies at `now`: an announced re-categorisation takes effect at its time. */
export const effectiveCategory = (
  row: Pick<WhatsAppTemplateRow, "category" | "pendingCategory" | "pendingCategoryAt">,
  now: Date,
) =>
  row.pendingCategory && row.pendingCategoryAt && row.pendingCategoryAt <= now.toISOString()
    ? row.pendingCategory
    : row.category;

/**
 * Why this template may not go to this number now, or null: a status Meta will not send, or a
 * MARKETING template (as categorised now) to a US (+1) number.
 */
export function templateProblem(row: WhatsAppTemplateRow | undefined, to: string, now: Date): WhatsAppFailure | null {
  if (!row) return null;
  if (row.status && UNSENDABLE_TEMPLATE_STATUSES.has(row.status)) {
    return failureOf(
      "whatsapp_template_not_sendable",
      `template ${row.name} (${row.language}) is ${row.status}${row.reason && row.reason !== "NONE" ? `: ${row.reason}` : ""}`,
    );
  }
  if (effectiveCategory(row, now) === "MARKETING" && isUsNumber(to)) {
    return failureOf("whatsapp_marketing_us_blocked", `template ${row.name} is categorised MARKETING`);
  }
  return null;
}

import { epochSecondsToIso } from "./types";

/**
 * A template change from Meta's WhatsApp Business Account webhooks (fields
 * message_template_status_update and template_category_update), normalised.
 */
export type TemplateUpdate =
  | {
      kind: "status";
      name: string;
      language: string;
      providerTemplateId: string | null;
      status: string;
      reason: string | null;
      category: string | null;
      at: string;
    }
  | {
      kind: "category";
      name: string;
      language: string;
      providerTemplateId: string | null;
      /** completed change: the category now; announced change: the category until `pendingAt` */
      category: string | null;
      /** an announced re-categorisation (24 h notice): the category from `pendingAt` */
      pendingCategory: string | null;
      pendingAt: string | null;
      at: string;
    };

interface TemplateValue {
  event?: string;
  message_template_id?: number | string;
  message_template_name?: string;
  message_template_language?: string;
  message_template_category?: string;
  reason?: string | null;
  previous_category?: string;
  new_category?: string;
  correct_category?: string;
  category_update_timestamp?: number;
}

interface Payload {
  object?: string;
  entry?: { time?: number; changes?: { field?: string; value?: TemplateValue }[] }[];
}

const up = (s: string | undefined | null) => (typeof s === "string" && s ? s.toUpperCase() : null);

/** The template status and category changes in a verified WhatsApp webhook body (others are skipped). */
export function parseMetaTemplateUpdates(body: unknown): TemplateUpdate[] {
  const p = body as Payload;
  const out: TemplateUpdate[] = [];
  if (p?.object !== "whatsapp_business_account") return out;
  for (const entry of p.entry ?? []) {
    const at = epochSecondsToIso(entry.time);
    for (const change of entry.changes ?? []) {
      const v = change.value;
      if (!v?.message_template_name || !v.message_template_language) continue;
      const base = {
        name: v.message_template_name,
        language: v.message_template_language,
        providerTemplateId: v.message_template_id != null ? String(v.message_template_id) : null,
        at,
      };
      if (change.field === "message_template_status_update" && v.event) {
        out.push({
          kind: "status",
          ...base,
          status: v.event.toUpperCase(),
          reason: v.reason ?? null,
          category: up(v.message_template_category),
        });
      } else if (change.field === "template_category_update") {
        const announced = Boolean(v.correct_category);
        out.push({
          kind: "category",
          ...base,
          category: up(v.new_category),
          pendingCategory: announced ? up(v.correct_category) : null,
          pendingAt: announced
            ? epochSecondsToIso(v.category_update_timestamp, new Date(Date.parse(at) + 24 * 3600_000))
            : null,
        });
      }
    }
  }
  return out;
}

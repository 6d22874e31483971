/**
 * WhatsApp's delivery rules that a retry cannot fix (sources in docs/messaging.md, "Providers' rules"):
 * - Meta does not deliver MARKETING templates to US (+1) numbers since 2025-04-01 (Twilio error 63049;
 *   the Cloud API answers 131049);
 * - Meta caps how many marketing templates one person receives from all businesses (131049, Twilio
 *   63049 outside the US): the same template fails again if resent soon;
 * - a template Meta paused or disabled cannot be sent (132015, 132016) until it is approved again.
 * Each becomes a non-retryable failure whose failureReason starts with a stable code, so people and
 * the per-campaign SMS fallback can tell them apart.
 */

export const WHATSAPP_FAILURE_CODES = [
  "whatsapp_marketing_us_blocked",
  "whatsapp_marketing_limit",
  "whatsapp_template_not_sendable",
] as const;
export type WhatsAppFailureCode = (typeof WHATSAPP_FAILURE_CODES)[number];

export interface WhatsAppFailure {
  code: WhatsAppFailureCode;
  /** the failureReason stored on the solicitation: "<code>: <what happened> (<provider error>)" */
  reason: string;
}

const EXPLAIN: Record<WhatsAppFailureCode, string> = {
  whatsapp_marketing_us_blocked:
    "Meta does not deliver WhatsApp marketing templates to US (+1) numbers; not retried (use a utility template or SMS)",
  whatsapp_marketing_limit:
    "Meta's per-user marketing template limit was reached for this recipient; not retried (resending the same template fails again)",
  whatsapp_template_not_sendable:
    "the WhatsApp template is paused, disabled or rejected by Meta; not retried until it is approved again",
};

export const failureOf = (code: WhatsAppFailureCode, source: string): WhatsAppFailure => ({
  code,
  reason: `${code}: ${EXPLAIN[code]} (${source})`,
});

/** A US or Canada (NANP, +1) number, with or without the plus or a whatsapp: prefix. Meta's rule names the US; +1 is how it is applied. */
export const isUsNumber = (to: string) => /^(?:whatsapp:)?\+?1\d{10}$/.test(to.replace(/[\s()-]/g, ""));

/** Meta Cloud API error codes (sync answer or status webhook) that are WhatsApp policy, not transient. */
export function metaFailure(code: number | undefined, to: string | undefined): WhatsAppFailure | null {
  switch (code) {
    case 131049:
      return failureOf(
        to && isUsNumber(to) ? "whatsapp_marketing_us_blocked" : "whatsapp_marketing_limit",
        "Meta error 131049",
      );
    case 132015:
    case 132016:
      return failureOf("whatsapp_template_not_sendable", `Meta error ${code}`);
    default:
      return null;
  }
}

/** Twilio error codes for the same rules (63049: Meta chose not to deliver a marketing message). */
export function twilioFailure(code: number | string | undefined, to: string | undefined): WhatsAppFailure | null {
  if (String(code) !== "63049") return null;
  return failureOf(
    to && isUsNumber(to) ? "whatsapp_marketing_us_blocked" : "whatsapp_marketing_limit",
    "Twilio error 63049",
  );
}

/** The rule code a stored failureReason starts with, if it is one of these. */
export function whatsappFailureCodeOf(failureReason: string | null | undefined): WhatsAppFailureCode | null {
  if (!failureReason) return null;
  // the delivery core prefixes the provider's name ("meta: ..."); the code follows it
  return WHATSAPP_FAILURE_CODES.find((c) => failureReason.includes(`${c}:`)) ?? null;
}

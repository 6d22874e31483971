import { and, eq } from "drizzle-orm";
import type { EventHandler } from "../../background/events";
import { campaigns, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { systemContext } from "../../lib/system-context";
import { type WhatsAppFailureCode, whatsappFailureCodeOf } from "../../providers/messaging/whatsapp-rules";
import { createSolicitations } from "./create";

/** The campaign metadata flag that turns the fallback on (off by default). */
export const SMS_FALLBACK_FLAG = "whatsappFallbackToSms";

/** The WhatsApp rules after which an SMS is the honest next channel (a retry on WhatsApp fails again). */
const FALLBACK_ON = new Set<WhatsAppFailureCode>([
  "whatsapp_marketing_us_blocked",
  "whatsapp_marketing_limit",
  "whatsapp_template_not_sendable",
]);

const fallbackCode = (e: EventEnvelope) =>
  e.type === "solicitation.failed" && e.data.channel === "whatsapp"
    ? whatsappFailureCodeOf(typeof e.data.reason === "string" ? e.data.reason : null)
    : null;

/**
 * Per-campaign SMS fallback: a WhatsApp solicitation of a campaign whose metadata sets
 * `whatsappFallbackToSms: true`, FAILED by a WhatsApp rule (marketing template to a US number,
 * per-user marketing limit, paused/rejected template), gets one SMS solicitation to the same
 * contact and location through createSolicitations, so the whole policy applies (SMS consent,
 * suppression, quiet hours, caps): without SMS consent it is BLOCKED NO_CONSENT and nothing is sent.
 * Idempotent: the SMS carries idempotencyKey `sms-fallback:{whatsappSolicitationId}` and is created
 * only when none exists.
 */
export async function fallBackToSms(env: Env, event: EventEnvelope): Promise<string | null> {
  const code = fallbackCode(event);
  const id = typeof event.data.solicitationId === "string" ? event.data.solicitationId : null;
  if (!code || !FALLBACK_ON.has(code) || !id) return null;
  const ctx = await systemContext(env, event.tenantId, "whatsapp-sms-fallback");
  try {
    const s = await ctx.db
      .select()
      .from(solicitations)
      .where(and(eq(solicitations.id, id), eq(solicitations.tenantId, ctx.tenantId)))
      .get();
    if (!s?.campaignId || s.channel !== "whatsapp" || s.status !== "FAILED") return null;
    const campaign = await ctx.db
      .select({ metadata: campaigns.metadata, channels: campaigns.channels })
      .from(campaigns)
      .where(and(eq(campaigns.id, s.campaignId), eq(campaigns.tenantId, ctx.tenantId)))
      .get();
    if (campaign?.metadata[SMS_FALLBACK_FLAG] !== true) return null;
    const key = `sms-fallback:${s.id}`;
    const done = await ctx.db
      .select({ id: solicitations.id })
      .from(solicitations)
      .where(and(eq(solicitations.tenantId, ctx.tenantId), eq(solicitations.idempotencyKey, key)))
      .get();
    if (done) return done.id;
    const { outcomes } = await createSolicitations(
      ctx,
      [
        {
          contactId: s.contactId,
          locationId: s.locationId,
          channel: "sms",
          campaignId: s.campaignId,
          destinationUrl: s.destinationUrl,
          idempotencyKey: key,
          metadata: { fallbackOf: s.id, fallbackReason: code },
        },
      ],
      {
        audit: {
          action: "solicitation.sms_fallback",
          resourceType: "solicitation",
          resourceId: s.id,
          metadata: { reason: code },
        },
      },
    );
    const out = outcomes[0];
    return out?.ok ? out.solicitation.id : null;
  } finally {
    await ctx.settle();
  }
}

export const whatsappSmsFallbackHandler: EventHandler = {
  name: "whatsapp-sms-fallback",
  select: async () => (e) => fallbackCode(e) !== null,
  handle: async (event, env) => void (await fallBackToSms(env, event)),
};

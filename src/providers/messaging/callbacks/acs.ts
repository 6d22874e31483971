import { safeEqual } from "../../../lib/crypto";
import type { DeliveryEvent } from "./types";

/** Event Grid does not sign deliveries: the subscription carries our secret, in a header or the URL. */
export const ACS_SECRET_HEADER = "x-webhook-secret";
export const ACS_SECRET_QUERY = "secret";

export function verifyEventGridSecret(secret: string, headerValue: string | null | undefined, url: URL): boolean {
  const given = headerValue ?? url.searchParams.get(ACS_SECRET_QUERY);
  return !!given && safeEqual(given, secret);
}

interface EventGridEvent {
  id?: string;
  eventType?: string;
  eventTime?: string;
  data?: {
    validationCode?: string;
    messageId?: string;
    recipient?: string;
    status?: string;
    deliveryAttemptTimeStamp?: string;
    deliveryStatusDetails?: { statusMessage?: string };
  };
}

export type AcsWebhook =
  /** answer 200 with {validationResponse} to finish the subscription handshake */
  { kind: "validation"; validationResponse: string } | { kind: "events"; events: DeliveryEvent[] };

const STATUS: Record<string, DeliveryEvent["status"]> = {
  Delivered: "delivered",
  Bounced: "bounced",
  Suppressed: "failed",
  Failed: "failed",
  Quarantined: "failed",
  FilteredSpam: "failed",
};

/** An Event Grid (Event Grid schema) delivery to the ACS webhook: the validation handshake or email delivery reports. */
export function parseAcsEventGrid(body: unknown): AcsWebhook {
  const list = (Array.isArray(body) ? body : [body]) as EventGridEvent[];
  const validation = list.find((e) => e?.eventType === "Microsoft.EventGrid.SubscriptionValidationEvent");
  if (validation?.data?.validationCode)
    return { kind: "validation", validationResponse: validation.data.validationCode };
  const events: DeliveryEvent[] = [];
  for (const e of list) {
    if (e?.eventType !== "Microsoft.Communication.EmailDeliveryReportReceived" || !e.data?.messageId) continue;
    const status = STATUS[e.data.status ?? ""];
    if (!status) continue;
    const reason = e.data.deliveryStatusDetails?.statusMessage;
    events.push({
      provider: "acs",
      providerMessageId: e.data.messageId,
      status,
      ...(e.data.recipient ? { address: e.data.recipient } : {}),
      ...(reason ? { reason } : {}),
      occurredAt: e.data.deliveryAttemptTimeStamp ?? e.eventTime ?? new Date().toISOString(),
    });
  }
  return { kind: "events", events };
}

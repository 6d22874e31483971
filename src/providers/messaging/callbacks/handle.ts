import type { FetchLike } from "../types";
import { ACS_SECRET_HEADER, parseAcsEventGrid, verifyEventGridSecret } from "./acs";
import type { WebhookKeys, WebhookProvider } from "./keys";
import { META_SIGNATURE_HEADER, metaVerificationChallenge, parseMetaWebhook, verifyMetaSignature } from "./meta";
import { parseMetaTemplateUpdates, type TemplateUpdate } from "./meta-templates";
import {
  parseSendGridEvents,
  SENDGRID_SIGNATURE_HEADER,
  SENDGRID_TIMESTAMP_HEADER,
  verifySendGridSignature,
} from "./sendgrid";
import { confirmSnsSubscription, parseSesNotification, type SnsMessage, verifySnsMessage } from "./sns";
import { parseTwilioWebhook, TWILIO_SIGNATURE_HEADER, verifyTwilioSignature } from "./twilio";
import type { DeliveryEvent, InboundMessage } from "./types";

export type WebhookOutcome =
  /** unsigned, badly signed or unparseable: answer 401 and change nothing */
  | { verified: false }
  | {
      verified: true;
      events: DeliveryEvent[];
      inbound: InboundMessage[];
      /** WhatsApp template status and category changes (Meta), applied to the template store */
      templates?: TemplateUpdate[];
      /** a handshake answer to send as is (Event Grid validation, Meta GET challenge); otherwise answer 200 */
      reply?: { status: number; body: string; contentType: string };
    };

const none = { verified: false } as const;
const ok = (
  events: DeliveryEvent[] = [],
  inbound: InboundMessage[] = [],
  reply?: { status: number; body: string; contentType: string },
) => ({ verified: true, events, inbound, ...(reply ? { reply } : {}) }) as const;

async function anyOf(candidates: string[], check: (key: string) => Promise<boolean> | boolean) {
  for (const key of candidates) if (await check(key)) return true;
  return false;
}

/**
 * Verifies and parses one provider webhook request. The route (POST, and GET for Meta's
 * verification) reads the tenant from `?tenant=`, loads keys with loadWebhookKeys, calls this, and
 * applies the events; `verified: false` is a 401.
 */
export async function handleProviderCallback(
  provider: WebhookProvider,
  req: Request,
  keys: WebhookKeys,
  o: { fetch?: FetchLike } = {},
): Promise<WebhookOutcome> {
  const url = new URL(req.url);
  if (req.method === "GET") {
    if (provider !== "meta") return none;
    for (const token of keys.metaVerifyTokens) {
      const challenge = metaVerificationChallenge(url.searchParams, token);
      if (challenge !== null) return ok([], [], { status: 200, body: challenge, contentType: "text/plain" });
    }
    return none;
  }
  const raw = new Uint8Array(await req.arrayBuffer());
  const text = new TextDecoder().decode(raw);
  try {
    switch (provider) {
      case "sendgrid": {
        const sig = req.headers.get(SENDGRID_SIGNATURE_HEADER);
        const ts = req.headers.get(SENDGRID_TIMESTAMP_HEADER);
        if (!(await anyOf(keys.sendgridPublicKeys, (k) => verifySendGridSignature(k, sig, ts, raw)))) return none;
        return ok(parseSendGridEvents(text));
      }
      case "twilio": {
        const params = new URLSearchParams(text);
        const sig = req.headers.get(TWILIO_SIGNATURE_HEADER);
        if (!(await anyOf(keys.twilioAuthTokens, (k) => verifyTwilioSignature(k, req.url, params, sig)))) return none;
        const parsed = parseTwilioWebhook(params);
        return ok(parsed.events, parsed.inbound);
      }
      case "meta": {
        const sig = req.headers.get(META_SIGNATURE_HEADER);
        if (!(await anyOf(keys.metaAppSecrets, (k) => verifyMetaSignature(k, raw, sig)))) return none;
        const json = JSON.parse(text) as unknown;
        const parsed = parseMetaWebhook(json);
        const templates = parseMetaTemplateUpdates(json);
        return { ...ok(parsed.events, parsed.inbound), ...(templates.length ? { templates } : {}) };
      }
      case "ses": {
        const message = JSON.parse(text) as SnsMessage;
        if (!(await verifySnsMessage(message, { allowedTopicArns: keys.snsTopicArns, fetch: o.fetch }))) return none;
        if (message.Type === "SubscriptionConfirmation") {
          await confirmSnsSubscription(message, o.fetch);
          return ok();
        }
        return ok(parseSesNotification(message));
      }
      case "acs": {
        if (!(await anyOf(keys.acsSecrets, (k) => verifyEventGridSecret(k, req.headers.get(ACS_SECRET_HEADER), url))))
          return none;
        const parsed = parseAcsEventGrid(JSON.parse(text));
        if (parsed.kind === "validation") {
          return ok([], [], {
            status: 200,
            body: JSON.stringify({ validationResponse: parsed.validationResponse }),
            contentType: "application/json",
          });
        }
        return ok(parsed.events);
      }
    }
  } catch {
    // a verified body we cannot parse is treated like a bad one: nothing changes
    return none;
  }
}

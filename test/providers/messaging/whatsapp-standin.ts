import type { FetchLike } from "../../../src/providers/messaging/types";
import { b64, hex, hmac, jsonResponse } from "./stand-in";

/**
 * Local stand-ins for the WhatsApp Cloud API and Twilio's WhatsApp sender that speak the rules that
 * bite (sources: docs/messaging.md, "Providers' rules"):
 * - a MARKETING template to a US (+1) number is accepted, then fails by status webhook
 *   (Meta: status failed, error 131049; Twilio: MessageStatus failed, ErrorCode 63049);
 * - a recipient over the per-user marketing limit fails the same way (131049 / 63049);
 * - a PAUSED or DISABLED template is refused at once (Meta 132015 / 132016 in a Graph error body);
 * - an unknown template is refused (132001).
 * It records every call and queues the status webhooks Meta or Twilio would then send, which the
 * test posts, signed, to our webhook route.
 */
export interface StandInTemplate {
  category: "MARKETING" | "UTILITY" | "AUTHENTICATION";
  status: "APPROVED" | "PAUSED" | "DISABLED";
}

export function metaCloudStandIn(o: {
  accessToken: string;
  templates: Record<string, StandInTemplate>;
  overMarketingLimit?: string[];
}) {
  const calls: { url: string; body: Record<string, any> }[] = [];
  const statuses: Record<string, unknown>[] = [];
  let n = 0;
  const graphError = (status: number, code: number, message: string) =>
    jsonResponse(status, { error: { message, type: "OAuthException", code, fbtrace_id: "AbC" } });
  const fetch: FetchLike = async (input, init) => {
    const req = new Request(input, init);
    const body = (await req.json()) as Record<string, any>;
    calls.push({ url: req.url, body });
    if (req.headers.get("authorization") !== `Bearer ${o.accessToken}`)
      return graphError(401, 190, "Invalid OAuth access token.");
    if (!/\/v\d+\.\d+\/\d+\/messages$/.test(new URL(req.url).pathname))
      return graphError(400, 100, "Unsupported post request.");
    const to = String(body.to);
    const t = body.type === "template" ? o.templates[body.template?.name] : undefined;
    if (body.type === "template" && !t)
      return graphError(404, 132001, "(#132001) Template name does not exist in the translation");
    if (t?.status === "PAUSED") return graphError(400, 132015, "(#132015) Template is Paused");
    if (t?.status === "DISABLED") return graphError(400, 132016, "(#132016) Template is Disabled");
    const id = `wamid.standin${++n}`;
    if (t?.category === "MARKETING" && (to.startsWith("1") || o.overMarketingLimit?.includes(to))) {
      statuses.push({
        id,
        status: "failed",
        timestamp: String(Math.floor(Date.now() / 1000)),
        recipient_id: to,
        errors: [{ code: 131049, title: "This message was not delivered to maintain healthy ecosystem engagement." }],
      });
    } else {
      statuses.push({ id, status: "delivered", timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: to });
    }
    return jsonResponse(200, {
      messaging_product: "whatsapp",
      contacts: [{ input: to, wa_id: to }],
      messages: [{ id }],
    });
  };
  /** The statuses webhook Meta would post now (object whatsapp_business_account, field messages), signed with the app secret. */
  const statusWebhook = async (appSecret: string) =>
    signedMeta(appSecret, { messaging_product: "whatsapp", statuses: statuses.splice(0) }, "messages");
  return { fetch, calls, statusWebhook };
}

/** A WhatsApp Business Account webhook body and its X-Hub-Signature-256. */
export async function signedMeta(
  appSecret: string,
  value: Record<string, unknown>,
  field: string,
  time = Math.floor(Date.now() / 1000),
) {
  const body = JSON.stringify({
    object: "whatsapp_business_account",
    entry: [{ id: "102290129340398", time, changes: [{ field, value }] }],
  });
  return { body, signature: `sha256=${hex(await hmac("SHA-256", appSecret, body))}` };
}

/** Twilio's WhatsApp sender: a marketing Content template to +1 is accepted, then its status callback says failed, 63049. */
export function twilioWhatsAppStandIn(o: { marketingContentSids: string[] }) {
  const callbacks: Record<string, string>[] = [];
  let n = 0;
  const fetch: FetchLike = async (input, init) => {
    const req = new Request(input, init);
    const form = Object.fromEntries(new URLSearchParams(await req.text()));
    const sid = `SM${String(++n).padStart(32, "0")}`;
    const to = form.To ?? "";
    const failed = o.marketingContentSids.includes(form.ContentSid ?? "") && to.startsWith("whatsapp:+1");
    callbacks.push({
      MessageSid: sid,
      AccountSid: `AC${"a".repeat(32)}`,
      From: form.From ?? "",
      To: to,
      MessageStatus: failed ? "failed" : "delivered",
      ...(failed
        ? { ErrorCode: "63049", ErrorMessage: "Meta chose not to deliver this WhatsApp marketing message" }
        : {}),
    });
    return jsonResponse(201, { sid, status: "queued" });
  };
  /** The next status callback, signed as Twilio signs (X-Twilio-Signature over the URL + sorted params). */
  const nextCallback = async (url: string, authToken: string) => {
    const params = callbacks.shift()!;
    const signed =
      url +
      Object.keys(params)
        .sort()
        .map((k) => k + params[k])
        .join("");
    return { body: new URLSearchParams(params).toString(), signature: b64(await hmac("SHA-1", authToken, signed)) };
  };
  return { fetch, nextCallback };
}

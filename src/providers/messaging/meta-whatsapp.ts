import { callProvider, isRetryableStatus, refusal } from "./http";
import { type FetchLike, type MessageProvider, type OutgoingMessage, ProviderError } from "./types";
import { metaFailure } from "./whatsapp-rules";

export const META_GRAPH_VERSION = "v21.0";

export interface MetaWhatsAppOptions {
  /** the WhatsApp Business phone number id (WhatsAppConfig.channelRegistrationId) */
  phoneNumberId: string;
  accessToken: string;
  apiVersion?: string | null;
  fetch?: FetchLike;
  baseUrl?: string;
}

interface GraphError {
  error?: { message?: string; code?: number; error_subcode?: number; error_data?: { details?: string } };
}

// Graph throttling and transient errors, whatever the HTTP status they come with
const TRANSIENT_CODES = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131016, 131048, 131056, 133004]);

const describe = (body: unknown) => {
  const e = (body as GraphError).error;
  if (!e) return undefined;
  return `${e.code ?? ""} ${e.message ?? ""}${e.error_data?.details ? ` (${e.error_data.details})` : ""}`.trim();
};

/** WhatsApp Cloud API: POST graph.facebook.com/{v}/{phone-number-id}/messages with a Bearer token. */
export class MetaWhatsAppProvider implements MessageProvider {
  readonly name = "meta";
  constructor(private readonly o: MetaWhatsAppOptions) {}

  private payload(m: OutgoingMessage) {
    const base = { messaging_product: "whatsapp", recipient_type: "individual", to: m.to.replace(/^\+/, "") };
    const t = m.whatsappTemplate;
    if (t) {
      const params = t.params ?? [];
      return {
        ...base,
        type: "template",
        template: {
          name: t.name,
          language: { code: t.language },
          ...(params.length
            ? { components: [{ type: "body", parameters: params.map((text) => ({ type: "text", text })) }] }
            : {}),
        },
      };
    }
    if (!m.withinServiceWindow) {
      throw new ProviderError(
        "meta: free text is only allowed within 24 hours of the recipient's last message; send a template",
        false,
      );
    }
    if (!m.text) throw new ProviderError("meta: a message needs text", false);
    return { ...base, type: "text", text: { preview_url: true, body: m.text } };
  }

  async send(m: OutgoingMessage) {
    if (m.channel !== "whatsapp") throw new ProviderError(`meta: cannot send ${m.channel}`, false);
    const version = this.o.apiVersion ?? META_GRAPH_VERSION;
    const url = `${this.o.baseUrl ?? "https://graph.facebook.com"}/${version}/${encodeURIComponent(this.o.phoneNumberId)}/messages`;
    const req = new Request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${this.o.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify(this.payload(m)),
    });
    const res = await callProvider(this.name, this.o.fetch ?? fetch, req);
    if (!res.ok) {
      const copy = res.clone();
      const code = ((await copy.json().catch(() => ({}))) as GraphError).error?.code;
      // WhatsApp policy (marketing to the US, per-user marketing limit, paused template): a retry fails again
      const rule = metaFailure(code, m.to);
      if (rule)
        throw new ProviderError(`${this.name}: HTTP ${res.status}: ${rule.reason}`, false, res.status, rule.code);
      throw await refusal(
        this.name,
        res,
        describe,
        isRetryableStatus(res.status) || (code !== undefined && TRANSIENT_CODES.has(code)),
      );
    }
    const out = (await res.json().catch(() => ({}))) as { messages?: { id?: string }[] };
    const id = out.messages?.[0]?.id;
    if (!id) throw new ProviderError("meta: answer without a message id", false, res.status);
    return { provider: this.name, providerMessageId: id };
  }
}

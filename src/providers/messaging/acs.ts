import { decodeBase64, encodeBase64 } from "../../lib/base64";
import { type EmailSender, emailParts } from "./email-sender";
import { callProvider, refusal } from "./http";
import { type FetchLike, type MessageProvider, type OutgoingMessage, ProviderError } from "./types";

export const ACS_EMAIL_API_VERSION = "2023-03-31";

export interface AcsOptions {
  /** https://{resource}.communication.azure.com */
  endpoint: string;
  /** the resource's access key (base64), as in its connection string */
  accessKey: string;
  sender: EmailSender;
  fetch?: FetchLike;
  now?: () => Date;
}

const enc = new TextEncoder();

const describe = (body: unknown) => {
  const err = (body as { error?: { code?: string; message?: string } }).error;
  return err ? [err.code, err.message].filter(Boolean).join(": ") : undefined;
};

/**
 * The HMAC-SHA256 access-key headers of an ACS data-plane request: the signature covers
 * "{METHOD}\n{path and query}\n{x-ms-date};{host};{x-ms-content-sha256}" under the base64-decoded key.
 */
export async function acsAuthHeaders(method: string, url: URL, body: string, accessKey: string, date: Date) {
  const contentHash = encodeBase64(new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(body))));
  const msDate = date.toUTCString();
  const stringToSign = `${method}\n${url.pathname}${url.search}\n${msDate};${url.host};${contentHash}`;
  const key = await crypto.subtle.importKey("raw", decodeBase64(accessKey), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const signature = encodeBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(stringToSign))));
  return {
    "x-ms-date": msDate,
    "x-ms-content-sha256": contentHash,
    authorization: `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`,
  };
}

/** Azure Communication Services Email: POST /emails:send; 202 with Operation-Location and the operation id. */
export class AcsEmailProvider implements MessageProvider {
  readonly name = "acs";
  constructor(private readonly o: AcsOptions) {}

  async send(m: OutgoingMessage) {
    const e = emailParts(this.name, this.o.sender, m);
    const body = JSON.stringify({
      senderAddress: e.from,
      content: { subject: e.subject, ...(e.text ? { plainText: e.text } : {}), ...(e.html ? { html: e.html } : {}) },
      recipients: { to: [{ address: e.to }] },
      ...(e.replyTo ? { replyTo: [{ address: e.replyTo }] } : {}),
      ...(Object.keys(e.headers).length ? { headers: e.headers } : {}),
      userEngagementTrackingDisabled: true,
    });
    const url = new URL(`/emails:send?api-version=${ACS_EMAIL_API_VERSION}`, this.o.endpoint);
    const auth = await acsAuthHeaders("POST", url, body, this.o.accessKey, (this.o.now ?? (() => new Date()))());
    const req = new Request(url, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body });
    const res = await callProvider(this.name, this.o.fetch ?? fetch, req);
    if (!res.ok) throw await refusal(this.name, res, describe);
    const out = (await res.json().catch(() => ({}))) as { id?: string };
    const location = res.headers.get("operation-location");
    const id = out.id ?? (location ? /\/operations\/([^/?]+)/.exec(location)?.[1] : undefined);
    if (!id) throw new ProviderError("acs: accepted without an operation id", false, res.status);
    return { provider: this.name, providerMessageId: id };
  }
}

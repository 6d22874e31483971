import type { FetchLike } from "../messaging/types";

/** Cloudflare's public resolver, JSON API: https://developers.cloudflare.com/1.1.1.1/encryption/dns-over-https/make-api-requests/dns-json/ */
export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";

export type TxtLookup =
  | { outcome: "records"; records: string[] }
  | { outcome: "none" }
  | { outcome: "error"; error: string };

/**
 * DNS-over-HTTPS (JSON API, `accept: application/dns-json`) TXT lookup. `Status` is the DNS RCODE:
 * 0 NOERROR, 3 NXDOMAIN ("none"); SERVFAIL (2), other codes and transport failures are "error", so a
 * caller can tell "the record is not there" from "we could not ask".
 */
export async function lookupTxt(name: string, o: { fetch: FetchLike; dohUrl: string }): Promise<TxtLookup> {
  const url = `${o.dohUrl}?name=${encodeURIComponent(name)}&type=TXT`;
  let body: { Status?: number; Answer?: { type?: number; data?: string }[] };
  try {
    const res = await o.fetch(url, { headers: { accept: "application/dns-json" } });
    if (!res.ok) return { outcome: "error", error: `DNS-over-HTTPS answered HTTP ${res.status} for ${name}` };
    body = await res.json();
  } catch (e) {
    return {
      outcome: "error",
      error: `DNS-over-HTTPS lookup of ${name} failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  if (body.Status === 3) return { outcome: "none" };
  if (body.Status !== 0) return { outcome: "error", error: `DNS lookup of ${name} answered status ${body.Status}` };
  // TXT data comes as one or more quoted strings: "v=DKIM1; k=rsa; " "p=MIGf..."
  const records = (body.Answer ?? [])
    .filter((a) => a.type === 16 && typeof a.data === "string")
    .map(
      (a) =>
        [...a.data!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1")).join("") || a.data!,
    );
  return records.length ? { outcome: "records", records } : { outcome: "none" };
}

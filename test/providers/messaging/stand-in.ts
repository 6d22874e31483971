import { expect } from "vitest";
import { type FetchLike, ProviderError } from "../../../src/providers/messaging/types";

export interface Call {
  req: Request;
  body: string;
}

/** A local stand-in for a provider's API: records every request and answers with `respond`. */
export function standIn(respond: (req: Request, body: string) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetch: FetchLike = async (input, init) => {
    const req = new Request(input, init);
    const body = await req.clone().text();
    calls.push({ req, body });
    return respond(req, body);
  };
  return { fetch, calls, last: () => calls.at(-1)! };
}

export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const enc = new TextEncoder();
export const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
export const b64 = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b)));
export const sha256Hex = async (s: string) => hex(await crypto.subtle.digest("SHA-256", enc.encode(s)));

export async function hmac(
  hash: "SHA-1" | "SHA-256",
  key: ArrayBuffer | Uint8Array | string,
  data: string,
): Promise<ArrayBuffer> {
  const raw = typeof key === "string" ? enc.encode(key) : key;
  const k = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, enc.encode(data));
}

/** AWS Signature Version 4, recomputed from the request as AWS would, independently of aws4fetch. */
export async function expectedSigV4(req: Request, body: string, secretAccessKey: string) {
  const auth = req.headers.get("authorization") ?? "";
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) throw new Error(`not a SigV4 Authorization header: ${auth}`);
  const [, , date, region, service, signedHeaders, signature] = m as unknown as string[];
  const url = new URL(req.url);
  const amzDate = req.headers.get("x-amz-date")!;
  const canonicalHeaders = signedHeaders!
    .split(";")
    .map((h) => `${h}:${(h === "host" ? url.host : (req.headers.get(h) ?? "")).trim()}\n`)
    .join("");
  const canonicalRequest = [
    req.method,
    url.pathname,
    url.search.slice(1),
    canonicalHeaders,
    signedHeaders,
    await sha256Hex(body),
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256Hex(canonicalRequest)].join("\n");
  let key: ArrayBuffer = await hmac("SHA-256", `AWS4${secretAccessKey}`, date!);
  for (const part of [region!, service!, "aws4_request"]) key = await hmac("SHA-256", key, part);
  return {
    given: signature,
    expected: hex(await hmac("SHA-256", key, stringToSign)),
    signedHeaders: signedHeaders!.split(";"),
    region,
    service,
  };
}

/** The ProviderError a send rejected with (the test fails if it resolved or threw something else). */
export async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
}

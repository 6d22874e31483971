// Drives the service-provider side of a sign-in through the Worker: /init, then the IdP's POST.
import { expect } from "vitest";
import { ConsoleBrowser } from "../console/helpers";
import { type ApiResponse, request } from "../helpers/http";

export interface StartedLogin {
  requestId: string;
  relayState: string;
  authnRequest: string;
  location: URL;
}

async function inflateRaw(b64: string): Promise<string> {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).text();
}

export async function startLogin(slug: string): Promise<StartedLogin> {
  const res = await request("GET", `/auth/saml/${slug}/init`);
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!);
  const authnRequest = await inflateRaw(location.searchParams.get("SAMLRequest")!);
  const requestId = /\bID="([^"]+)"/.exec(authnRequest)![1]!;
  return { requestId, relayState: location.searchParams.get("RelayState")!, authnRequest, location };
}

export function postResponse(slug: string, samlResponseB64: string, relayState?: string): Promise<ApiResponse> {
  const form = new URLSearchParams({
    SAMLResponse: samlResponseB64,
    ...(relayState ? { RelayState: relayState } : {}),
  });
  return request("POST", `/auth/saml/${slug}/callback`, {
    body: form.toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

/**
 * The console's end of SAML sign-in, as a browser goes through it: the callback's /sso/complete?code=, the
 * page that asks to continue, the post that spends the code. Returns the signed-in browser.
 */
export async function consoleExchange(location: string) {
  const b = new ConsoleBrowser();
  const url = new URL(location);
  const landed = await b.get(url.pathname + url.search);
  expect(landed.status).toBe(303);
  expect(landed.location).toBe("/sso/complete");
  const ask = await b.get("/sso/complete");
  expect(ask.status, ask.text).toBe(200);
  const done = await b.post("/sso/complete", {}, { csrf: null });
  expect(done.status, done.text).toBe(303);
  expect(done.location).toBe("/app");
  return { b, ask };
}

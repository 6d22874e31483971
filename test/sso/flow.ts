// Drives the service-provider side of a sign-in through the Worker: /init, then the IdP's POST.
import { expect } from "vitest";
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

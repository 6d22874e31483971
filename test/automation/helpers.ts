import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { inboxItems, reviews } from "../../src/db/schema";
import { tenantDb } from "../../src/db/shards";
import type { EventEnvelope, EventType } from "../../src/lib/events";
import { newId } from "../../src/lib/ids";

export interface RecordedCall {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  redirect: RequestInit["redirect"];
  hasSignal: boolean;
}

/** An HTTP endpoint stand-in: records each request (raw body kept for signature checks) and answers with `respond`. */
export function endpoint(
  respond: (call: RecordedCall) => Response | Promise<Response> = () => new Response("ok", { status: 200 }),
) {
  const calls: RecordedCall[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const call: RecordedCall = {
      url: req.url,
      method: req.method,
      headers: req.headers,
      body: await req.text(),
      redirect: init?.redirect,
      hasSignal: Boolean(init?.signal),
    };
    calls.push(call);
    return respond(call);
  }) as typeof fetch;
  return { fetch: fetchFn, calls };
}

const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/**
 * Verifies a Standard Webhooks signature independently of the service's code: HMAC-SHA256 with the
 * base64-decoded secret (after whsec_) over "{webhook-id}.{webhook-timestamp}.{body}", checked with
 * crypto.subtle.verify against each "v1,<base64>" entry of webhook-signature.
 */
export async function verifyStandardWebhook(secret: string, headers: Headers, body: string): Promise<boolean> {
  expect(secret.startsWith("whsec_")).toBe(true);
  const id = headers.get("webhook-id");
  const ts = headers.get("webhook-timestamp");
  const sigs = (headers.get("webhook-signature") ?? "").split(" ");
  if (!id || !ts || !sigs.length) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    b64(secret.slice("whsec_".length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const signed = new TextEncoder().encode(`${id}.${ts}.${body}`);
  for (const s of sigs) {
    const [version, mac] = s.split(",");
    if (version === "v1" && mac && (await crypto.subtle.verify("HMAC", key, b64(mac), signed))) return true;
  }
  return false;
}

export const event = (
  tenantId: string,
  type: EventType,
  data: Record<string, unknown>,
  id = `evt_${newId()}`,
): EventEnvelope => ({
  id,
  type,
  tenantId,
  occurredAt: new Date().toISOString(),
  data,
});

/** A review and its inbox item written straight to D1 (no events, so no background handlers run). */
export async function seedReview(
  tenantId: string,
  locationId: string,
  o: { rating?: number; sentiment?: "positive" | "neutral" | "negative"; authorName?: string; text?: string } = {},
) {
  const now = new Date().toISOString();
  const review = {
    id: newId(),
    tenantId,
    locationId,
    siteType: "google",
    rating: o.rating ?? 2,
    text: o.text ?? "Slow service",
    authorName: o.authorName ?? "Dana Reyes",
    sentiment: o.sentiment ?? "negative",
    sentimentScore: -0.5,
    topics: ["service"],
    status: "new" as const,
    isFirstParty: false,
    isPublic: true,
    occurredAt: now,
    createdAt: now,
    updatedAt: now,
  };
  const item = {
    id: newId(),
    tenantId,
    type: "review" as const,
    reviewId: review.id,
    feedbackId: null,
    locationId,
    status: "new" as const,
    assignedToUserId: null,
    tags: [] as string[],
    escalatedAt: null,
    escalationReason: null,
    createdAt: now,
    updatedAt: now,
  };
  const rows = await tenantDb(env, tenantId);
  await rows.batch([rows.insert(reviews).values(review as never), rows.insert(inboxItems).values(item)]);
  return { review, item };
}

export { env };

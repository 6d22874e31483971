import { and, eq } from "drizzle-orm";
import { integrations } from "../../db/schema";
import type { Env } from "../../env";
import { decodeBase64Text } from "../../lib/base64";
import { safeEqual } from "../../lib/crypto";
import { ApiError, notFound } from "../../lib/errors";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import type { ExternalReview } from "../../providers/review-sites";
import { openCredentials } from "../integrations/service";
import { storePage } from "./sync";

/** Trustpilot's service review webhook body (Integrations > Developers > Webhooks). */
interface TrustpilotEvent {
  eventName?: string;
  version?: string;
  eventData?: {
    id?: string;
    language?: string;
    title?: string;
    text?: string;
    stars?: number;
    createdAt?: string;
    updatedAt?: string;
    consumer?: { id?: string; name?: string };
  };
}

const STORED_EVENTS = new Set(["service-review-created", "service-review-updated"]);

function toReview(e: NonNullable<TrustpilotEvent["eventData"]>): ExternalReview | null {
  if (!e.id) return null;
  const text = [e.title, e.text].filter((s) => s?.trim()).join("\n\n");
  return {
    externalReviewId: e.id,
    rating: typeof e.stars === "number" ? e.stars : null,
    ratingMax: 5,
    text: text || null,
    authorName: e.consumer?.name ?? null,
    authorExternalId: e.consumer?.id ?? null,
    language: e.language ? e.language.slice(0, 2).toLowerCase() : null,
    publishedAt: e.createdAt ?? null,
    updatedAt: e.updatedAt ?? e.createdAt ?? null,
    url: `https://www.trustpilot.com/reviews/${encodeURIComponent(e.id)}`,
    replyText: null,
  };
}

/** The secret a request carries: HTTP Basic credentials in the subscription URL (the password), or `?secret=`. */
function presentedSecret(req: Request): string | null {
  const auth = req.headers.get("authorization");
  if (auth?.startsWith("Basic ")) {
    try {
      // RFC 7617: base64 of "user:password" in UTF-8
      const decoded = decodeBase64Text(auth.slice(6));
      return decoded.slice(decoded.indexOf(":") + 1);
    } catch {
      return null;
    }
  }
  return new URL(req.url).searchParams.get("secret");
}

/**
 * POST /webhooks/review-sites/trustpilot/{integrationId}?tenant=: Trustpilot does not sign its
 * webhooks, so the subscription URL carries the integration's `credentials.webhookSecret` (Basic
 * credentials or `secret=`), compared in constant time; anything else is 401 and nothing changes.
 * New and updated service reviews are upserted on (tenant, site, external id) exactly as a sync page,
 * so a redelivery changes nothing; deleted reviews are left to the next reconciliation sync.
 */
export async function receiveTrustpilotWebhook(
  env: Env,
  tenantId: string,
  integrationId: string,
  req: Request,
  body: unknown,
) {
  const ctx = await systemContext(env, tenantId, "webhook:trustpilot");
  try {
    const row = await ctx.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.id, integrationId), eq(integrations.tenantId, tenantId)))
      .get();
    const secret =
      row && row.connectorType === "trustpilot" ? (await openCredentials(env, row)).webhookSecret : undefined;
    const given = presentedSecret(req);
    if (!row || !secret || !given || !safeEqual(given, secret))
      throw new ApiError("UNAUTHENTICATED", "Webhook secret missing or invalid");
    if (!row.isEnabled || !row.locationId) throw notFound("Integration");
    const events = ((body as { events?: TrustpilotEvent[] })?.events ?? []).filter(
      (e) => e && STORED_EVENTS.has(e.eventName ?? ""),
    );
    const page = events
      .map((e) => (e.eventData ? toReview(e.eventData) : null))
      .filter((r): r is ExternalReview => r !== null);
    const counts = await storePage(ctx, row, page);
    await ctx.db
      .update(integrations)
      .set({ lastWebhookAt: nowIso() })
      .where(and(eq(integrations.id, row.id), eq(integrations.tenantId, tenantId)));
    return { received: ((body as { events?: unknown[] })?.events ?? []).length, ...counts };
  } finally {
    await ctx.settle();
  }
}

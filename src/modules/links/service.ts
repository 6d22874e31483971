import type { ControlDb } from "../../db/client";
import { tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { ApiError, notFound } from "../../lib/errors";
import type { HostGuard } from "../../lib/host-guard";
import { jwtSecrets } from "../../lib/jwt";
import { tenantPublicBaseUrl } from "../white-label/resolve";
import { bufferClick, countedClickId, type Visit } from "./clicks";
import {
  asDestinationKind,
  feedbackPageUrl,
  type LocationLinkData,
  type ResolvedDestination,
  resolveDestination,
  reviewLinks,
} from "./destinations";
import { customDestinationUrl, locationLinkData } from "./location-cache";
import { type LinkClaims, readLinkToken } from "./tokens";

/** What public routes have: no tenant, no actor; the tenant comes from the signed token. */
export interface PublicContext {
  /** the control database; a tenant's rows are read on its shard once the token names it */
  control: ControlDb;
  env: Env;
  defer: (work: Promise<unknown>) => void;
  /** the request's host guard: called with the token's tenant before anything is served (middleware/public-host.ts) */
  admit: HostGuard;
  /** the request as the click gate reads it (method, headers): which opens count (clicks.ts) */
  visit: Visit;
}

export interface ShortLink {
  claims: LinkClaims;
  location: LocationLinkData;
  destination: ResolvedDestination;
}

/**
 * Verifies the token's MAC and resolves its destination from cached per-location data; D1 is read
 * only on a cache miss (or once per custom-destination link). Unknown or forged token: 404.
 * A link whose location was deleted or deactivated is no longer active: 404 with details.reason.
 */
export async function resolveShortLink(ctx: PublicContext, token: string): Promise<ShortLink> {
  const claims = await readLinkToken(jwtSecrets(ctx.env), token);
  if (!claims) throw notFound("Link");
  // a custom hostname serves only its own tenants' links (isolate caches when hot)
  await ctx.admit(claims.tenantId);
  // tenant rows on the token's tenant's shard (a directory cache hit when hot)
  const db = await tenantDb(ctx.env, claims.tenantId);
  const location = await locationLinkData(
    { db, publicBaseUrl: ctx.env.PUBLIC_BASE_URL, defer: ctx.defer },
    claims.tenantId,
    claims.locationId,
  );
  if (!location?.isActive) {
    throw new ApiError("NOT_FOUND", "This link is no longer active", {
      reason: location ? "location_inactive" : "location_deleted",
    });
  }
  const kind = asDestinationKind(claims.destination);
  const customUrl = kind === "custom" ? await customDestinationUrl(db, claims.tenantId, claims.solicitationId) : null;
  let destination = resolveDestination(kind, location, { publicBaseUrl: ctx.env.PUBLIC_BASE_URL, token, customUrl });
  // the hosted feedback page lives on the tenant's custom hostname when it has one
  if (destination.resolved === "feedback") {
    destination = resolveDestination(kind, location, {
      publicBaseUrl: await tenantPublicBaseUrl(ctx.env, claims.tenantId),
      token,
      customUrl,
    });
  }
  return { claims, location, destination };
}

/**
 * Counts the open as a click when the gate says so (one per visitor and window, no HEAD, prefetch or
 * preview bot: clicks.ts) and buffers it; the write happens off the request path.
 */
export async function recordClick(
  ctx: PublicContext,
  link: ShortLink,
  source: "redirect" | "qr" | "api",
): Promise<void> {
  const id = await countedClickId(ctx.env.JWT_SECRET!, ctx.visit, `solicitation:${link.claims.solicitationId}`);
  if (!id) return;
  bufferClick(
    ctx.env,
    {
      id,
      tenantId: link.claims.tenantId,
      solicitationId: link.claims.solicitationId,
      source,
      at: new Date().toISOString(),
    },
    ctx.defer,
  );
}

/** The JSON body of GET /v1/r/{token}. */
export async function shortLinkView(ctx: PublicContext, token: string, link: ShortLink) {
  return {
    solicitationId: link.claims.solicitationId,
    destination: link.destination.kind,
    resolvedDestination: link.destination.resolved,
    url: link.destination.url,
    location: { id: link.location.locationId, name: link.location.name },
    brand: link.location.brand,
    // the sites a customer may be asked to review on: never Yelp (src/lib/review-solicitation.ts)
    reviewLinks: (({ yelp: _yelp, ...asked }) => asked)(reviewLinks(link.location)),
    feedbackUrl: feedbackPageUrl(await tenantPublicBaseUrl(ctx.env, link.claims.tenantId), token),
  };
}

/** What a short link's QR code encodes: the redirect, marked as a scan. Unknown or forged token: 404. */
export async function shortLinkQrTarget(ctx: PublicContext, token: string): Promise<string> {
  const claims = await readLinkToken(jwtSecrets(ctx.env), token);
  if (!claims) throw notFound("Link");
  await ctx.admit(claims.tenantId);
  return `${ctx.env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/v1/r/${encodeURIComponent(token)}?redirect=1&src=qr`;
}

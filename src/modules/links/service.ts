import type { ControlDb } from "../../db/client";
import { controlDb, tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { ApiError, notFound } from "../../lib/errors";
import { jwtSecrets } from "../../lib/jwt";
import { bufferClick } from "./clicks";
import { asDestinationKind, feedbackPageUrl, resolveDestination, reviewLinks, type LocationLinkData, type ResolvedDestination } from "./destinations";
import { customDestinationUrl, locationLinkData } from "./location-cache";
import { readLinkToken, type LinkClaims } from "./tokens";
import { hostServesTenant, tenantPublicBaseUrl, tenantWhiteLabel, type HostOwner } from "../white-label/resolve";

/** What public routes have: no tenant, no actor; the tenant comes from the signed token. */
export interface PublicContext {
  /** the control database; a tenant's rows are read on its shard once the token names it */
  control: ControlDb;
  env: Env;
  defer: (work: Promise<unknown>) => void;
  /** the custom hostname the request came in on, when it is one (docs/white-label.md) */
  customHost?: HostOwner | null;
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
  // tenant rows on the token's tenant's shard (a directory cache hit when hot); white-label rows on the control plane
  const db = await tenantDb(ctx.env, claims.tenantId);
  const control = controlDb(ctx.env);
  const location = await locationLinkData({ db, publicBaseUrl: ctx.env.PUBLIC_BASE_URL, defer: ctx.defer }, claims.tenantId, claims.locationId);
  if (!location || !location.isActive) {
    throw new ApiError("NOT_FOUND", "This link is no longer active", { reason: location ? "location_inactive" : "location_deleted" });
  }
  // on a custom hostname: only its own tenants' links (the white label is an isolate cache hit when hot)
  if (ctx.customHost) {
    const wl = await tenantWhiteLabel(control, claims.tenantId);
    if (!wl || !hostServesTenant(ctx.customHost, wl)) throw notFound("Link");
  }
  const kind = asDestinationKind(claims.destination);
  const customUrl = kind === "custom" ? await customDestinationUrl(db, claims.tenantId, claims.solicitationId) : null;
  let destination = resolveDestination(kind, location, { publicBaseUrl: ctx.env.PUBLIC_BASE_URL, token, customUrl });
  // the hosted feedback page lives on the tenant's custom hostname when it has one
  if (destination.resolved === "feedback") {
    destination = resolveDestination(kind, location, { publicBaseUrl: await tenantPublicBaseUrl(ctx.env, claims.tenantId), token, customUrl });
  }
  return { claims, location, destination };
}

/** Records a click off the request path (see clicks.ts); the caller has already answered. */
export function recordClick(ctx: PublicContext, link: ShortLink, source: "redirect" | "qr" | "api"): void {
  bufferClick(
    ctx.env,
    { id: crypto.randomUUID(), tenantId: link.claims.tenantId, solicitationId: link.claims.solicitationId, source, at: new Date().toISOString() },
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
    reviewLinks: reviewLinks(link.location),
    feedbackUrl: feedbackPageUrl(await tenantPublicBaseUrl(ctx.env, link.claims.tenantId), token),
  };
}

/** What a short link's QR code encodes: the redirect, marked as a scan. Unknown or forged token: 404. */
export async function shortLinkQrTarget(ctx: PublicContext, token: string): Promise<string> {
  if (!(await readLinkToken(jwtSecrets(ctx.env), token))) throw notFound("Link");
  return `${ctx.env.PUBLIC_BASE_URL.replace(/\/+$/, "")}/v1/r/${encodeURIComponent(token)}?redirect=1&src=qr`;
}

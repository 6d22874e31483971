import type { ControlDb } from "../../db/client";
import { tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { ApiError, notFound } from "../../lib/errors";
import type { HostGuard } from "../../lib/host-guard";
import { countedClickId, type Visit } from "../links/clicks";
import { reviewLinks as siteUrlsOf } from "../links/destinations";
import { locationLinkData } from "../links/location-cache";
import { chooseSite, randomUnit } from "./chooser";
import { bufferReviewLinkClick } from "./clicks";
import { reviewLinkTarget } from "./resolve";
import { qrTargetUrl } from "./schemas";

export interface PublicDeps {
  control: ControlDb;
  env: Env;
  defer: (p: Promise<unknown>) => void;
  /** the request's host guard: a custom hostname serves only its own tenants' links (middleware/public-host.ts) */
  admit: HostGuard;
  /** the request as the click gate reads it (links/clicks.ts) */
  visit: Visit;
}

/**
 * One open of `/l/{slug}`: the link from the isolate cache, the location's review pages from the
 * short links' three-tier cache, a weighted draw, and the click (when it counts) buffered off the request path.
 * Unknown or deactivated link, or a location gone or deactivated: 404 (reason in details).
 */
export async function openReviewLink(deps: PublicDeps, slug: string, source: "link" | "qr"): Promise<string> {
  const link = await reviewLinkTarget(deps.env, slug);
  if (!link?.isActive)
    throw new ApiError("NOT_FOUND", "This link is no longer active", {
      reason: link ? "link_inactive" : "link_unknown",
    });
  await deps.admit(link.tenantId);
  const location = await locationLinkData(
    { db: await tenantDb(deps.env, link.tenantId), publicBaseUrl: deps.env.PUBLIC_BASE_URL, defer: deps.defer },
    link.tenantId,
    link.locationId,
  );
  if (!location?.isActive)
    throw new ApiError("NOT_FOUND", "This link is no longer active", {
      reason: location ? "location_inactive" : "location_deleted",
    });
  const urls = siteUrlsOf(location);
  const site = chooseSite(link.weights, urls, randomUnit());
  if (!site) throw new ApiError("NOT_FOUND", "This link is no longer active", { reason: "no_review_site" });
  // counted as short links count: one per visitor and window, no HEAD, prefetch or preview bot
  const id = await countedClickId(deps.env.JWT_SECRET!, deps.visit, `review-link:${link.id}`);
  if (id)
    bufferReviewLinkClick(
      deps.env,
      { id, tenantId: link.tenantId, reviewLinkId: link.id, site, source, at: new Date().toISOString() },
      deps.defer,
    );
  return urls[site]!;
}

/** What the link's QR code encodes; 404 for an unknown or deactivated link. */
export async function reviewLinkQrTarget(deps: PublicDeps, slug: string): Promise<string> {
  const link = await reviewLinkTarget(deps.env, slug);
  if (!link?.isActive) throw notFound("Review link");
  await deps.admit(link.tenantId);
  return qrTargetUrl(deps.env.PUBLIC_BASE_URL, slug);
}

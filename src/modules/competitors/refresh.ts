import { and, asc, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { type CompetitorSiteSummary, competitors, integrations } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import { type FetchFn, ReviewSiteError, reviewSiteClient } from "../../providers/review-sites";
import { siteConnection } from "../integrations/service";
import { type CompetitorRow, toCompetitor } from "./schemas";
import { findCompetitorRow } from "./service";

/** A competitor is refreshed at most this often by the sweep. */
export const REFRESH_INTERVAL_HOURS = 24;
/** Competitors one sweep run refreshes (one site call each). */
export const REFRESH_BATCH = 25;

export interface RefreshDeps {
  fetch: FetchFn;
}
const defaultDeps: RefreshDeps = { fetch: (...a) => fetch(...a) };

/**
 * The tenant's enabled Yelp connection, preferring the competitor's own location: its Fusion API key
 * reads any business. Other sites cannot be read for a business the tenant does not own (Google
 * Business Profile and Facebook only serve your own; Places, Tripadvisor and Trustpilot's public
 * API have no client here), so only Yelp is refreshed.
 */
async function yelpConnection(ctx: ServiceContext, locationId: string) {
  const row = await ctx.db
    .select()
    .from(integrations)
    .where(
      and(
        eq(integrations.tenantId, ctx.tenantId),
        eq(integrations.connectorType, "yelp"),
        eq(integrations.isEnabled, true),
      ),
    )
    .orderBy(desc(sql`${integrations.locationId} = ${locationId}`), asc(integrations.createdAt))
    .limit(1)
    .get();
  return row ? siteConnection(ctx.env, row) : null;
}

const weighted = (bySite: Record<string, CompetitorSiteSummary>) => {
  const sites = Object.values(bySite).filter((s) => s.rating !== null);
  const n = sites.reduce((a, s) => a + (s.reviewCount ?? 0), 0);
  const averageRating = !sites.length
    ? null
    : n > 0
      ? Math.round((sites.reduce((a, s) => a + s.rating! * (s.reviewCount ?? 0), 0) / n) * 100) / 100
      : Math.round((sites.reduce((a, s) => a + s.rating!, 0) / sites.length) * 100) / 100;
  const counts = Object.values(bySite).filter((s) => s.reviewCount !== null);
  return { averageRating, reviewCount: counts.length ? counts.reduce((a, s) => a + s.reviewCount!, 0) : null };
};

/** Reads the competitor's figures from the sites that allow it and stores them (with an audit row). */
export async function refreshCompetitor(ctx: ServiceContext, id: string, deps: RefreshDeps = defaultDeps) {
  const before = await findCompetitorRow(ctx, id);
  const now = nowIso();
  const bySite = { ...before.bySite };
  let status: CompetitorRow["lastRefreshStatus"] = "ok";
  let error: string | null = null;
  if (!before.yelpBusinessId) {
    status = "no_site_ids";
    error = "No site id the service can read: set yelpBusinessId";
  } else {
    const conn = await yelpConnection(ctx, before.locationId);
    const client = conn ? reviewSiteClient(conn, deps.fetch) : null;
    if (!client?.businessSummary) {
      status = "no_connection";
      error = "No enabled Yelp integration (its Fusion API key reads competitors)";
    } else {
      try {
        const s = await client.businessSummary(before.yelpBusinessId);
        bySite.yelp = { rating: s.rating, reviewCount: s.reviewCount, fetchedAt: now };
      } catch (e) {
        if (!(e instanceof ReviewSiteError)) throw e;
        status = "error";
        error = e.message;
      }
    }
  }
  const after: CompetitorRow = {
    ...before,
    bySite,
    ...weighted(bySite),
    lastRefreshedAt: now,
    lastRefreshStatus: status,
    lastRefreshError: error,
    updatedAt: now,
  };
  const { averageRating, reviewCount, lastRefreshedAt, lastRefreshStatus, lastRefreshError } = after;
  await commit(ctx, [
    ctx.db
      .update(competitors)
      .set({ bySite, averageRating, reviewCount, lastRefreshedAt, lastRefreshStatus, lastRefreshError, updatedAt: now })
      .where(and(eq(competitors.id, id), eq(competitors.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "competitor.refreshed",
      resourceType: "competitor",
      resourceId: id,
      previousState: { averageRating: before.averageRating, reviewCount: before.reviewCount },
      nextState: { averageRating, reviewCount, status, error },
    }),
  ]);
  return toCompetitor(after);
}

/** Cron: refreshes competitors not refreshed within the interval, oldest first, REFRESH_BATCH per run. */
export async function refreshDueCompetitors(
  env: Env,
  db: ShardDb,
  now: Date,
  deps: RefreshDeps = defaultDeps,
): Promise<number> {
  const cutoff = new Date(now.getTime() - REFRESH_INTERVAL_HOURS * 3600_000).toISOString();
  const due = await db
    .select({ id: competitors.id, tenantId: competitors.tenantId })
    .from(competitors)
    .where(or(isNull(competitors.lastRefreshedAt), lt(competitors.lastRefreshedAt, cutoff)))
    .orderBy(asc(competitors.lastRefreshedAt))
    .limit(REFRESH_BATCH);
  for (const c of due) {
    const ctx = await systemContext(env, c.tenantId, "competitor-refresh");
    try {
      await refreshCompetitor(ctx, c.id, deps);
    } catch (e) {
      // one broken row must not stop the batch; the next run retries it
      log.error("competitor refresh failed", { competitorId: c.id, error: String(e) });
    }
  }
  return due.length;
}

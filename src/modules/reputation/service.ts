import { and, desc, eq, gte, lte, sql } from "drizzle-orm";
import { analyticsResponseDaily as r, reputationScores, analyticsReviewDaily as v } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { openDueByLocation, sumOf } from "../analytics/aggregates";
import { addDaysTo, dayOf } from "../analytics/dates";
import { requireLocation } from "../locations/refs";
import { type ScoreInputs, scoreComponents, scoreOf } from "./formula";
import { type ScoreRow, toSnapshot } from "./schemas";

/** The score's inputs for a location as of `day` (inclusive windows ending that day), from the rollups. */
export async function scoreInputs(
  ctx: ServiceContext,
  locationId: string,
  day: string,
  now: Date,
): Promise<ScoreInputs> {
  const window = (t: typeof v | typeof r, days: number) =>
    and(
      eq(t.tenantId, ctx.tenantId),
      eq(t.locationId, locationId),
      gte(t.day, addDaysTo(day, -(days - 1))),
      lte(t.day, day),
    );
  const [year, month, quarter, responses] = await ctx.db.batch([
    ctx.db
      .select({
        rated: sumOf(v.rated),
        ratingSum: sql<number>`total(${v.ratingSum})`.mapWith(Number),
        sites: sql<number>`count(distinct ${v.siteType})`.mapWith(Number),
      })
      .from(v)
      .where(window(v, 365)),
    ctx.db
      .select({ n: sumOf(v.reviews) })
      .from(v)
      .where(window(v, 30)),
    ctx.db
      .select({ positive: sumOf(v.positive), neutral: sumOf(v.neutral), negative: sumOf(v.negative) })
      .from(v)
      .where(window(v, 90)),
    ctx.db
      .select({
        arrived: sumOf(r.reviews),
        responded: sumOf(r.responded),
        met: sumOf(r.slaMet),
        missed: sumOf(r.slaMissed),
      })
      .from(r)
      .where(window(r, 90)),
  ]);
  const open = (await openDueByLocation(ctx.db, window(r, 90)!, nowIso(now))).get(locationId);
  return {
    rated365: year[0]!.rated,
    ratingSum365: year[0]!.ratingSum,
    sites365: year[0]!.sites,
    reviews30: month[0]!.n,
    positive90: quarter[0]!.positive,
    neutral90: quarter[0]!.neutral,
    negative90: quarter[0]!.negative,
    arrived90: responses[0]!.arrived,
    responded90: responses[0]!.responded,
    slaMet90: responses[0]!.met,
    slaMissed90: responses[0]!.missed + (open?.missed ?? 0),
  };
}

/** Computes today's snapshot of a location (replacing one computed earlier today). Derived data: not audited. */
export async function computeScore(ctx: ServiceContext, locationId: string, now = new Date()) {
  const day = dayOf(now);
  const inputs = await scoreInputs(ctx, locationId, day, now);
  const c = scoreComponents(inputs);
  const row: ScoreRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    locationId,
    day,
    score: scoreOf(c),
    ...c,
    inputs: { ...inputs },
    computedAt: nowIso(now),
  };
  const { id, tenantId, locationId: _l, day: _d, ...update } = row;
  const saved = await ctx.db
    .insert(reputationScores)
    .values(row)
    .onConflictDoUpdate({
      target: [reputationScores.tenantId, reputationScores.locationId, reputationScores.day],
      set: update,
    })
    .returning()
    .get();
  return toSnapshot(saved);
}

/** POST /v1/locations/{id}/score: recompute now, audited. */
export async function recomputeScore(ctx: ServiceContext, locationId: string) {
  await requireLocation(ctx, locationId);
  const snap = await computeScore(ctx, locationId);
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "score.computed",
      resourceType: "location",
      resourceId: locationId,
      nextState: snap,
    }),
  ]);
  return snap;
}

/** The latest snapshot (score.location skill, GET /v1/locations/{id}/score); computed now when there is none. 404 for another tenant's location. */
export async function latestScore(ctx: ServiceContext, locationId: string) {
  await requireLocation(ctx, locationId);
  const row = await ctx.db
    .select()
    .from(reputationScores)
    .where(and(eq(reputationScores.tenantId, ctx.tenantId), eq(reputationScores.locationId, locationId)))
    .orderBy(desc(reputationScores.day))
    .limit(1)
    .get();
  return row ? toSnapshot(row) : computeScore(ctx, locationId);
}

export async function scoreHistory(
  ctx: ServiceContext,
  locationId: string,
  q: { dateFrom?: string; dateTo?: string; limit: number },
) {
  await requireLocation(ctx, locationId);
  const rows = await ctx.db
    .select()
    .from(reputationScores)
    .where(
      and(
        eq(reputationScores.tenantId, ctx.tenantId),
        eq(reputationScores.locationId, locationId),
        q.dateFrom ? gte(reputationScores.day, q.dateFrom) : undefined,
        q.dateTo ? lte(reputationScores.day, q.dateTo) : undefined,
      ),
    )
    .orderBy(desc(reputationScores.day))
    .limit(q.limit);
  return { data: rows.map(toSnapshot) };
}

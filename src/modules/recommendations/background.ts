import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { ShardSweep } from "../../background/shards";
import type { ShardDb } from "../../db/client";
import { recommendationRuns, tenants } from "../../db/schema";
import type { Env } from "../../env";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import { dayOf } from "../analytics/dates";
import { generateRecommendations } from "./rules";
import { dueSnoozed, wakeRecommendation } from "./service";

/** Tenants one run generates for: the rules cost a few dozen queries per tenant. */
export const TENANTS_PER_RUN = 10;

/**
 * Runs the rules once a day for every active tenant, TENANTS_PER_RUN at a time: the daily cron
 * starts, the 5-minute cron continues until every tenant has today's run.
 */
export async function recommendationSweep(env: Env, db: ShardDb, now: Date): Promise<number> {
  const day = dayOf(now);
  const due = await db
    .select({ id: tenants.id })
    .from(tenants)
    .leftJoin(recommendationRuns, eq(recommendationRuns.tenantId, tenants.id))
    .where(
      and(
        eq(tenants.isActive, true),
        or(isNull(recommendationRuns.lastRunDay), lt(recommendationRuns.lastRunDay, day)),
      ),
    )
    .limit(TENANTS_PER_RUN);
  for (const t of due) {
    try {
      await generateRecommendations(await systemContext(env, t.id, "recommendations"), now);
    } catch (e) {
      log.error("recommendation rules failed", { tenantId: t.id, error: String(e) });
    }
    // recorded either way: a tenant whose data breaks a rule must not starve the others; it runs again tomorrow
    await db
      .insert(recommendationRuns)
      .values({ tenantId: t.id, lastRunDay: day, lastRunAt: nowIso(now) })
      .onConflictDoUpdate({ target: recommendationRuns.tenantId, set: { lastRunDay: day, lastRunAt: nowIso(now) } });
  }
  return due.length;
}

/** Snoozed recommendations whose snoozedUntil has passed go back to pending (audited as the system). */
export async function wakeSnoozed(env: Env, db: ShardDb, now: Date): Promise<number> {
  const due = await dueSnoozed({ db }, now);
  for (const r of due) await wakeRecommendation(await systemContext(env, r.tenantId, "recommendation-wake"), r.id);
  return due.length;
}

/** Runs on both crons: the daily one starts the day's runs, the 5-minute one continues them. */
export const recommendationRulesSweep: ShardSweep = {
  name: "recommendation-rules",
  run: async (env, shard, now) => void (await recommendationSweep(env, shard, now)),
};
export const recommendationWakeSweep: ShardSweep = {
  name: "recommendation-wake",
  run: async (env, shard, now) => void (await wakeSnoozed(env, shard, now)),
};

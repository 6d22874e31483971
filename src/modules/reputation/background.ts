import { and, eq, notExists, sql } from "drizzle-orm";
import type { ShardSweep } from "../../background/shards";
import type { ShardDb } from "../../db/client";
import { locations, reputationScores } from "../../db/schema";
import type { Env } from "../../env";
import { systemContext } from "../../lib/system-context";
import { dayOf } from "../analytics/dates";
import { computeScore } from "./service";

/** Locations one run scores: each costs a handful of queries, well under D1's per-invocation limit. */
export const SCORE_BATCH = 100;

/**
 * Today's snapshot for every active location that has none yet, SCORE_BATCH at a time. The daily
 * cron starts the day's work and the 5-minute cron continues it until every location is done
 * (then each run is a single query that finds nothing).
 */
export async function scoreSweep(env: Env, db: ShardDb, now: Date): Promise<number> {
  const day = dayOf(now);
  const due = await db
    .select({ id: locations.id, tenantId: locations.tenantId })
    .from(locations)
    .where(
      and(
        eq(locations.isActive, true),
        notExists(
          db
            .select({ one: sql`1` })
            .from(reputationScores)
            .where(
              and(
                eq(reputationScores.tenantId, locations.tenantId),
                eq(reputationScores.locationId, locations.id),
                eq(reputationScores.day, day),
              ),
            ),
        ),
      ),
    )
    .limit(SCORE_BATCH);
  for (const loc of due) await computeScore(await systemContext(env, loc.tenantId, "reputation-score"), loc.id, now);
  return due.length;
}

/** Runs on both crons: the daily one starts the day's scores, the 5-minute one continues them. */
export const reputationScoresSweep: ShardSweep = {
  name: "reputation-scores",
  run: async (env, shard, now) => void (await scoreSweep(env, shard, now)),
};

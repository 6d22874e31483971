import { inArray, lt } from "drizzle-orm";
import type { Sweep } from "../../background/cron";
import type { ControlDb } from "../../db/client";
import { sessions } from "../../db/schema";
import { controlDb } from "../../db/shards";
import { addDays } from "../../lib/time";

/** A session row is kept this long after its absolute end (why it ended stays readable for support), then deleted. */
export const SESSION_ROW_RETENTION_DAYS = 7;
const BATCH = 500;
const MAX_BATCHES = 40;

/**
 * Deletes session rows whose absolute end is more than SESSION_ROW_RETENTION_DAYS past, in bounded
 * batches (on the expires_at index). Every row is dead by then: an ended or idle session is, and
 * nothing lives past its absolute end. Returns how many were deleted.
 */
export async function purgeSessions(db: ControlDb, now: Date): Promise<number> {
  const cutoff = addDays(now, -SESSION_ROW_RETENTION_DAYS).toISOString();
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const doomed = db.select({ id: sessions.id }).from(sessions).where(lt(sessions.expiresAt, cutoff)).limit(BATCH);
    const gone = await db.delete(sessions).where(inArray(sessions.id, doomed)).returning({ id: sessions.id });
    deleted += gone.length;
    if (gone.length < BATCH) break;
  }
  return deleted;
}

export const purgeSessionsSweep: Sweep = {
  name: "purge-sessions",
  run: async (env, now) => {
    await purgeSessions(controlDb(env), now);
  },
};

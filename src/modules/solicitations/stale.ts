import { and, eq, gte, isNull, lt } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { sendRecords, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import { commit } from "../../lib/commit";
import { eventStatement } from "../../lib/events";
import { nowIso } from "../../lib/time";
import { inJson } from "../../lib/sql";
import { enqueueSends } from "./queue";

/** A PENDING solicitation this old without a send record lost its queue message: send it again. */
export const REQUEUE_AFTER_MS = 30 * 60_000;
/** A PENDING solicitation this old is given up on: FAILED. */
export const GIVE_UP_AFTER_MS = 24 * 3600_000;
const LIMIT = 500;
/** solicitations failed per sweep run, in one commit with their events (the next run takes the rest) */
const FAIL_LIMIT = 90;

/**
 * Safety net for delivery (cron, every 5 minutes). A queue send can fail after the solicitation was
 * committed, and an isolate can die mid-send: requeue PENDING solicitations that never reached a
 * provider (the send record makes a duplicate message harmless), and fail those still PENDING a day
 * later (including interrupted sends whose outcome is unknown: never resent).
 */
export async function sweepStalePending(env: Env, db: ShardDb, now: Date): Promise<{ requeued: number; failed: number }> {
  const requeueBefore = nowIso(new Date(now.getTime() - REQUEUE_AFTER_MS));
  const giveUpBefore = nowIso(new Date(now.getTime() - GIVE_UP_AFTER_MS));
  const [lost, expired] = await db.batch([
    db
      .select({ id: solicitations.id, tenantId: solicitations.tenantId })
      .from(solicitations)
      .leftJoin(sendRecords, eq(sendRecords.solicitationId, solicitations.id))
      .where(and(eq(solicitations.status, "PENDING"), lt(solicitations.createdAt, requeueBefore), gte(solicitations.createdAt, giveUpBefore), isNull(sendRecords.solicitationId)))
      .limit(LIMIT),
    db
      .select({ id: solicitations.id, tenantId: solicitations.tenantId, contactId: solicitations.contactId, channel: solicitations.channel })
      .from(solicitations)
      .where(and(eq(solicitations.status, "PENDING"), lt(solicitations.createdAt, giveUpBefore)))
      .limit(FAIL_LIMIT),
  ]);
  await enqueueSends(env, lost);
  if (expired.length) {
    const reason = "not delivered within 24 hours";
    const at = nowIso(now);
    const deferred: Promise<unknown>[] = [];
    await commit(
      { db, env, defer: (p) => void deferred.push(p) },
      [db.update(solicitations).set({ status: "FAILED", failureReason: reason, updatedAt: at }).where(and(inJson(solicitations.id, expired.map((s) => s.id)), eq(solicitations.status, "PENDING")))],
      expired.map((s) => eventStatement({ db, tenantId: s.tenantId }, "solicitation.failed", { solicitationId: s.id, contactId: s.contactId, channel: s.channel, reason })),
    );
    await Promise.all(deferred);
  }
  return { requeued: lost.length, failed: expired.length };
}

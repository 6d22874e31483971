import { and, eq, gte, isNull, lt, sql } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { sendRecords, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import { commit } from "../../lib/commit";
import { eventStatement } from "../../lib/events";
import { inJson } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import { enqueueSends } from "./queue";
import { reconcileInterruptedSends } from "./reconcile";

/** A PENDING solicitation this old without a send record lost its queue message: send it again. */
export const REQUEUE_AFTER_MS = 30 * 60_000;
/** A PENDING solicitation this old is given up on: FAILED. */
export const GIVE_UP_AFTER_MS = 24 * 3600_000;
/**
 * Requeued per run: a whole campaign send (5,000) whose queue messages died with the runtime comes
 * back in one sweep cycle (two columns a row; the queue takes them 100 per call, in parallel).
 */
const REQUEUE_LIMIT = 5_000;
/** solicitations failed per sweep run, in one commit with their events (the next run takes the rest) */
const FAIL_LIMIT = 90;

/**
 * Safety net for delivery (cron, every 5 minutes). A queue send can fail after the solicitation was
 * committed, and an isolate can die mid-send: requeue PENDING solicitations that never reached a
 * provider (the send record makes a duplicate message harmless); reconcile interrupted sends (a
 * claim left by a dead consumer) to SENT, or SENT with an unknown outcome (reconcile.ts), never
 * resent; and fail those still PENDING a day later that never reached a provider.
 */
export async function sweepStalePending(
  env: Env,
  db: ShardDb,
  now: Date,
): Promise<{ requeued: number; failed: number; reconciled: number; outcomeUnknown: number; resent: number }> {
  const requeueBefore = nowIso(new Date(now.getTime() - REQUEUE_AFTER_MS));
  const giveUpBefore = nowIso(new Date(now.getTime() - GIVE_UP_AFTER_MS));
  const [lost, expired] = await db.batch([
    db
      .select({ id: solicitations.id, tenantId: solicitations.tenantId })
      .from(solicitations)
      .leftJoin(sendRecords, eq(sendRecords.solicitationId, solicitations.id))
      .where(
        and(
          eq(solicitations.status, "PENDING"),
          lt(solicitations.createdAt, requeueBefore),
          gte(solicitations.createdAt, giveUpBefore),
          isNull(sendRecords.solicitationId),
        ),
      )
      .limit(REQUEUE_LIMIT),
    // never handed to a provider (no claim): a claimed one is reconciled instead, never FAILED
    db
      .select({
        id: solicitations.id,
        tenantId: solicitations.tenantId,
        contactId: solicitations.contactId,
        channel: solicitations.channel,
      })
      .from(solicitations)
      .leftJoin(sendRecords, eq(sendRecords.solicitationId, solicitations.id))
      .where(
        and(
          eq(solicitations.status, "PENDING"),
          lt(solicitations.createdAt, giveUpBefore),
          isNull(sendRecords.solicitationId),
        ),
      )
      .limit(FAIL_LIMIT),
  ]);
  const reconciled = await reconcileInterruptedSends(db, env, now);
  await enqueueSends(env, lost);
  if (expired.length) {
    const reason = "not delivered within 24 hours";
    const at = nowIso(now);
    const deferred: Promise<unknown>[] = [];
    await commit(
      { db, env, defer: (p) => void deferred.push(p) },
      [
        db
          .update(solicitations)
          .set({ status: "FAILED", failureReason: reason, updatedAt: at })
          .where(
            and(
              inJson(
                solicitations.id,
                expired.map((s) => s.id),
              ),
              eq(solicitations.status, "PENDING"),
              sql`not exists (select 1 from ${sendRecords} where ${sendRecords.solicitationId} = ${solicitations.id})`,
            ),
          ),
      ],
      expired.map((s) =>
        eventStatement({ db, tenantId: s.tenantId }, "solicitation.failed", {
          solicitationId: s.id,
          contactId: s.contactId,
          channel: s.channel,
          reason,
        }),
      ),
    );
    await Promise.all(deferred);
  }
  return {
    requeued: lost.length,
    failed: expired.length,
    reconciled: reconciled.sent,
    outcomeUnknown: reconciled.unknown,
    resent: reconciled.resent,
  };
}

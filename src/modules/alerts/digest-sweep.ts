import { and, asc, eq, isNotNull, lte } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { alertSends, alertSubscriptions } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { newId } from "../../lib/ids";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { emailProviderFor } from "../../providers/messaging/transactional";
import { digestData } from "./digest-data";
import { renderDigest } from "./digest-email";
import { recipientEmail } from "./recipient";
import { digestPeriod, latestDue, nextDue, periodKey } from "./schedule";
import type { AlertSubscriptionRow } from "./schemas";
import { alertUnsubscribeUrl, listUnsubscribeHeaders } from "./tokens";

export const DIGESTS_PER_RUN = 100;

export type DigestOutcome = "sent" | "skipped" | "already_sent" | "not_due";

/**
 * Sends the digest of the latest due period if nobody has: the claim in alert_sends under
 * {frequency}:{local date} is the once-per-period guarantee (two sweeps at once: one insert wins).
 * A sweep that was down for days sends only the latest period's digest. Then nextDigestAt moves on.
 */
export async function sendDueDigest(
  env: Env,
  db: ShardDb,
  sub: AlertSubscriptionRow,
  now: Date,
): Promise<DigestOutcome> {
  const due = latestDue(sub, now);
  let outcome: DigestOutcome = "not_due";
  if (due && sub.digestFrequency !== "none") {
    const period = digestPeriod(sub, due.date);
    const claim = await db
      .insert(alertSends)
      .values({
        id: newId(),
        tenantId: sub.tenantId,
        subscriptionId: sub.id,
        key: periodKey(sub, due.date),
        kind: "digest",
        status: "sending",
        periodStart: period.start.toISOString(),
        periodEnd: period.end.toISOString(),
        summary: {},
        error: null,
        createdAt: nowIso(),
        sentAt: null,
      })
      .onConflictDoNothing()
      .returning()
      .get();
    outcome = "already_sent";
    if (claim) {
      try {
        const to = await recipientEmail(controlDb(env), sub.tenantId, sub.userId);
        const data = await digestData(db, sub, period);
        const summary = {
          newReviews: data.newReviews.count,
          averageRating: data.newReviews.averageRating,
          ratingChange: data.trend.change,
          unanswered: data.responsesDue.unanswered,
          awaitingApproval: data.responsesDue.awaitingApproval,
          slaBreaches: data.slaBreaches.count,
        };
        if (to) {
          const url = await alertUnsubscribeUrl(env, {
            tenantId: sub.tenantId,
            subscriptionId: sub.id,
            kind: "digest",
          });
          const mail = renderDigest(data, {
            frequency: sub.digestFrequency,
            timeZone: sub.timeZone,
            unsubscribeUrl: url,
          });
          await emailProviderFor(db, env, sub.tenantId).send({
            tenantId: sub.tenantId,
            channel: "email",
            to,
            ...mail,
            headers: listUnsubscribeHeaders(url),
          });
        }
        outcome = to ? "sent" : "skipped";
        await db
          .update(alertSends)
          .set({
            status: outcome,
            summary,
            sentAt: nowIso(),
            error: to ? null : "recipient inactive or without a role",
          })
          .where(eq(alertSends.id, claim.id));
      } catch (err) {
        // released: the next sweep (5 minutes later) tries this period again
        await db.delete(alertSends).where(eq(alertSends.id, claim.id));
        throw err;
      }
    }
  }
  const next = nextDue(sub, due?.at ?? now);
  await db
    .update(alertSubscriptions)
    .set({ nextDigestAt: next?.at.toISOString() ?? null })
    .where(
      and(
        eq(alertSubscriptions.id, sub.id),
        sub.nextDigestAt ? eq(alertSubscriptions.nextDigestAt, sub.nextDigestAt) : undefined,
      ),
    );
  return outcome;
}

/** The alert-digests sweep (every 5 minutes): subscriptions whose nextDigestAt has come, any tenant's, oldest due first. */
export async function sendDueDigests(env: Env, db: ShardDb, now = new Date()) {
  const due = await db
    .select()
    .from(alertSubscriptions)
    .where(
      and(
        isNotNull(alertSubscriptions.nextDigestAt),
        lte(alertSubscriptions.nextDigestAt, now.toISOString()),
        eq(alertSubscriptions.isActive, true),
      ),
    )
    .orderBy(asc(alertSubscriptions.nextDigestAt))
    .limit(DIGESTS_PER_RUN);
  const outcomes: Record<DigestOutcome | "failed", number> = {
    sent: 0,
    skipped: 0,
    already_sent: 0,
    not_due: 0,
    failed: 0,
  };
  for (const sub of due) {
    try {
      outcomes[await sendDueDigest(env, db, sub, now)]++;
    } catch (err) {
      outcomes.failed++;
      log.error("digest failed", { subscriptionId: sub.id, error: String(err) });
    }
  }
  return outcomes;
}

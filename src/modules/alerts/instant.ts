import { and, eq, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import {
  alertSends,
  alertSubscriptions,
  locations,
  reviews,
  webhookDeliveries,
  webhookSubscriptions,
} from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import type { EventEnvelope } from "../../lib/events";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { consoleReviewItemUrl } from "../../lib/urls";
import { emailProviderFor } from "../../providers/messaging/transactional";
import { deliveryBody, pendingDelivery } from "../outgoing-webhooks/delivery";
import type { MessageSink } from "../outgoing-webhooks/fanout";
import { alertEmail } from "./instant-email";
import { alertMatches, recentEnough } from "./matching";
import { recipientEmail } from "./recipient";
import type { AlertSubscriptionRow } from "./schemas";
import { alertUnsubscribeUrl, listUnsubscribeHeaders } from "./tokens";

type Review = typeof reviews.$inferSelect;

/** The event type of an alert posted to a webhook: not a domain event, only ever sent to the subscription's own webhook. */
export const ALERT_WEBHOOK_EVENT = "review.alert";

/** One read for the batch: review.created events of tenants with an active instant alert. */
export async function selectAlertEvents(events: EventEnvelope[], _env: Env, shard: ShardDb) {
  const candidates = events.filter((e) => e.type === "review.created");
  if (!candidates.length) return () => false;
  const tenantIds = [...new Set(candidates.map((e) => e.tenantId))];
  const rows = await shard
    .selectDistinct({ tenantId: alertSubscriptions.tenantId })
    .from(alertSubscriptions)
    .where(
      and(
        eq(alertSubscriptions.isActive, true),
        or(eq(alertSubscriptions.instantEmail, true), isNotNull(alertSubscriptions.webhookId)),
        sql`${alertSubscriptions.tenantId} in (select value from json_each(${JSON.stringify(tenantIds)}))`,
      ),
    );
  const armed = new Set(rows.map((r) => r.tenantId));
  return (e: EventEnvelope) => e.type === "review.created" && armed.has(e.tenantId);
}

async function queueWebhook(
  db: ShardDb,
  _env: Env,
  queue: MessageSink,
  sub: AlertSubscriptionRow,
  review: Review,
  locationName: string,
  event: EventEnvelope,
) {
  const hook = await db
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.id, sub.webhookId!),
        eq(webhookSubscriptions.tenantId, sub.tenantId),
        eq(webhookSubscriptions.isActive, true),
      ),
    )
    .get();
  if (!hook) return false;
  const now = nowIso();
  const envelope = {
    id: `evt_alert_${sub.id}_${review.id}`,
    type: ALERT_WEBHOOK_EVENT,
    occurredAt: event.occurredAt,
    tenantId: sub.tenantId,
    data: {
      alertSubscriptionId: sub.id,
      userId: sub.userId,
      reviewId: review.id,
      locationId: review.locationId,
      locationName,
      siteType: review.siteType,
      rating: review.rating,
      text: review.text,
      authorName: review.authorName,
      externalUrl: review.externalUrl,
    },
  };
  // unique (webhook, event id): a second run adds no second delivery
  const inserted = await db
    .insert(webhookDeliveries)
    .values(
      pendingDelivery(
        {
          tenantId: sub.tenantId,
          subscriptionId: hook.id,
          eventId: envelope.id,
          eventType: envelope.type,
          payload: deliveryBody(envelope),
        },
        now,
      ),
    )
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id })
    .get();
  if (inserted) await queue.sendBatch([{ body: { tenantId: sub.tenantId, deliveryId: inserted.id } }]);
  return true;
}

/**
 * EVENTS handler for review.created: every active subscription whose filters the review passes
 * gets one email (if instantEmail) and one delivery to its webhook (if set). Each alert is claimed
 * in alert_sends under review:{reviewId} first, so it goes out once; a failure releases the claim
 * and throws, so the event is retried (an email may then repeat, never be lost).
 */
export async function alertOnReview(
  env: Env,
  db: ShardDb,
  event: EventEnvelope,
  queue: MessageSink = env.WEBHOOKS,
): Promise<number> {
  const reviewId = typeof event.data.reviewId === "string" ? event.data.reviewId : null;
  if (!reviewId) return 0;
  const review = await db
    .select()
    .from(reviews)
    .where(and(eq(reviews.id, reviewId), eq(reviews.tenantId, event.tenantId)))
    .get();
  if (!review || !recentEnough(review, new Date())) return 0;
  const subs = (
    await db
      .select()
      .from(alertSubscriptions)
      .where(
        and(
          eq(alertSubscriptions.tenantId, event.tenantId),
          eq(alertSubscriptions.isActive, true),
          or(isNull(alertSubscriptions.locationId), eq(alertSubscriptions.locationId, review.locationId)),
          or(eq(alertSubscriptions.instantEmail, true), isNotNull(alertSubscriptions.webhookId)),
        ),
      )
  ).filter((s) => alertMatches(s, review));
  if (!subs.length) return 0;
  const locationName =
    (await db.select({ name: locations.name }).from(locations).where(eq(locations.id, review.locationId)).get())
      ?.name ?? "your location";
  let sent = 0;
  for (const sub of subs) {
    const key = `review:${review.id}`;
    const claim = await db
      .insert(alertSends)
      .values({
        id: newId(),
        tenantId: sub.tenantId,
        subscriptionId: sub.id,
        key,
        kind: "instant",
        status: "sending",
        periodStart: null,
        periodEnd: null,
        summary: { reviewId: review.id },
        error: null,
        createdAt: nowIso(),
        sentAt: null,
      })
      .onConflictDoNothing()
      .returning()
      .get();
    if (!claim) continue;
    try {
      const to = sub.instantEmail ? await recipientEmail(controlDb(env), sub.tenantId, sub.userId) : null;
      if (to) {
        const url = await alertUnsubscribeUrl(env, { tenantId: sub.tenantId, subscriptionId: sub.id, kind: "instant" });
        const mail = alertEmail(review, locationName, url, consoleReviewItemUrl(env, sub.tenantId, review.id));
        await emailProviderFor(db, env, sub.tenantId).send({
          tenantId: sub.tenantId,
          channel: "email",
          to,
          ...mail,
          headers: listUnsubscribeHeaders(url),
        });
      }
      const webhook = sub.webhookId ? await queueWebhook(db, env, queue, sub, review, locationName, event) : false;
      const status = to || webhook ? "sent" : "skipped";
      await db
        .update(alertSends)
        .set({ status, sentAt: nowIso(), summary: { reviewId: review.id, email: Boolean(to), webhook } })
        .where(eq(alertSends.id, claim.id));
      if (status === "sent") sent++;
    } catch (err) {
      await db.delete(alertSends).where(eq(alertSends.id, claim.id));
      throw err;
    }
  }
  return sent;
}

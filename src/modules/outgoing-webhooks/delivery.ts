import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { recordDeadLetters, webhookDeliveryMessageId } from "../../background/dead-letter";
import type { Db, ShardDb } from "../../db/client";
import { webhookDeliveries, webhookSubscriptions } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { backoffSeconds } from "../../lib/backoff";
import { SYSTEM_META } from "../../lib/context";
import { newId } from "../../lib/ids";
import { log } from "../../lib/log";
import { addSeconds } from "../../lib/time";
import { AUTO_DISABLE_AFTER_MS, retryDelaySeconds } from "./schedule";
import type { DeliveryRow, WebhookRow } from "./schemas";
import { openSecret } from "./service";
import { type AttemptResult, type FetchFn, postSigned, webhookFetch } from "./transport";

/** What a WEBHOOKS queue message carries. */
export interface WebhookDeliveryMessage {
  tenantId: string;
  deliveryId: string;
}

/** The JSON body of a delivery (Standard Webhooks style: type, timestamp, data). */
export const deliveryBody = (e: {
  id: string;
  type: string;
  occurredAt: string;
  tenantId: string;
  data: Record<string, unknown>;
}) => JSON.stringify({ id: e.id, type: e.type, timestamp: e.occurredAt, tenantId: e.tenantId, data: e.data });

export const newMessageId = () => `msg_${newId()}`;

/**
 * A delivery as it starts, whatever made it (an event's fan-out, a redelivery, a test, an instant
 * alert): pending, never attempted, due now; a new webhook-id (msg_...) unless a redelivery keeps the
 * original's, which receivers dedupe on. The one definition (test/node/one-definition.test.ts).
 */
export const pendingDelivery = (
  o: Pick<DeliveryRow, "tenantId" | "subscriptionId" | "eventId" | "eventType" | "payload"> &
    Partial<Pick<DeliveryRow, "messageId" | "redeliveryOf">>,
  now: string,
): DeliveryRow => ({
  id: `whd_${newId()}`,
  tenantId: o.tenantId,
  subscriptionId: o.subscriptionId,
  messageId: o.messageId ?? newMessageId(),
  eventId: o.eventId,
  eventType: o.eventType,
  payload: o.payload,
  redeliveryOf: o.redeliveryOf ?? null,
  status: "pending",
  attempts: 0,
  responseStatus: null,
  responseBody: null,
  latencyMs: null,
  error: null,
  lastAttemptAt: null,
  nextAttemptAt: now,
  createdAt: now,
  updatedAt: now,
});

const batch = (db: Db, statements: BatchItem<"sqlite">[]) =>
  db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);

const attemptColumns = (r: AttemptResult, attempts: number, at: string) => ({
  attempts,
  responseStatus: r.responseStatus,
  responseBody: r.responseBody,
  latencyMs: r.latencyMs,
  error: r.error,
  lastAttemptAt: at,
  updatedAt: at,
});

export type AttemptOutcome = "succeeded" | "retry" | "failed" | "cancelled" | "skipped";

/**
 * One attempt of a pending delivery, recorded on its row. Success resets the endpoint's failure
 * bookkeeping; a failure schedules the next attempt, or after the last one fails the delivery
 * and dead-letters it; an endpoint failing for AUTO_DISABLE_AFTER_MS is disabled (audited).
 */
export async function attemptDelivery(
  env: Env,
  db: Db,
  delivery: DeliveryRow,
  sub: WebhookRow,
  o: { fetch?: FetchFn; now?: Date; random?: () => number; countTowardsHealth?: boolean } = {},
): Promise<{ outcome: AttemptOutcome; delaySeconds?: number; row: DeliveryRow }> {
  const now = o.now ?? new Date();
  const at = now.toISOString();
  const result = await postSigned(
    env,
    { url: sub.url, secret: await openSecret(env, sub), messageId: delivery.messageId, body: delivery.payload },
    o.fetch ?? webhookFetch(),
    now,
  );
  const attempts = delivery.attempts + 1;
  const whereDelivery = and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.tenantId, delivery.tenantId));
  const whereSub = and(eq(webhookSubscriptions.id, sub.id), eq(webhookSubscriptions.tenantId, sub.tenantId));
  const health = o.countTowardsHealth ?? true;

  if (result.ok) {
    const row: DeliveryRow = {
      ...delivery,
      ...attemptColumns(result, attempts, at),
      status: "succeeded",
      nextAttemptAt: null,
    };
    const statements: BatchItem<"sqlite">[] = [
      db
        .update(webhookDeliveries)
        .set({ ...attemptColumns(result, attempts, at), status: "succeeded", nextAttemptAt: null })
        .where(whereDelivery),
    ];
    if (health && (sub.failingSince || sub.consecutiveFailures)) {
      statements.push(
        db.update(webhookSubscriptions).set({ failingSince: null, consecutiveFailures: 0 }).where(whereSub),
      );
    }
    await batch(db, statements);
    return { outcome: "succeeded", row };
  }

  const delay = result.refused || !health ? null : retryDelaySeconds(attempts, o.random);
  const finalFailure = delay === null;
  const nextAttemptAt = finalFailure ? null : addSeconds(now, delay).toISOString();
  const set = {
    ...attemptColumns(result, attempts, at),
    status: finalFailure ? ("failed" as const) : ("pending" as const),
    nextAttemptAt,
  };
  const statements: BatchItem<"sqlite">[] = [db.update(webhookDeliveries).set(set).where(whereDelivery)];
  if (health) {
    const failingSince = sub.failingSince ?? at;
    const disable = sub.isActive && now.getTime() - Date.parse(failingSince) >= AUTO_DISABLE_AFTER_MS;
    const reason = `Every delivery attempt failed since ${failingSince} (${sub.consecutiveFailures + 1} in a row); last error: ${result.error}`;
    statements.push(
      db
        .update(webhookSubscriptions)
        .set({
          consecutiveFailures: sql`${webhookSubscriptions.consecutiveFailures} + 1`,
          failingSince: sql`coalesce(${webhookSubscriptions.failingSince}, ${at})`,
          ...(disable ? { isActive: false, disabledAt: at, disabledReason: reason, updatedAt: at } : {}),
        })
        .where(whereSub),
    );
    if (disable) {
      statements.push(
        auditStatement(
          { db, actor: { type: "system", name: "webhook-delivery" }, meta: SYSTEM_META },
          {
            tenantId: sub.tenantId,
            action: "webhook.auto_disabled",
            resourceType: "webhook_subscription",
            resourceId: sub.id,
            previousState: { isActive: true },
            nextState: { isActive: false, disabledAt: at, disabledReason: reason },
            metadata: { failingSince, consecutiveFailures: sub.consecutiveFailures + 1, lastDeliveryId: delivery.id },
          },
        ),
      );
    }
  }
  await batch(db, statements);
  // dead letters are control-plane rows (the tenant's shard has no such table): written after the
  // delivery's own batch, idempotent by message id, so a retried final attempt cannot add a second one
  if (finalFailure && health) {
    await recordDeadLetters(
      env,
      [
        {
          queue: "webhooks",
          messageId: webhookDeliveryMessageId(delivery.id),
          body: {
            tenantId: delivery.tenantId,
            deliveryId: delivery.id,
            subscriptionId: sub.id,
            attempts,
            error: result.error,
          },
          attempts,
        },
      ],
      at,
    );
  }
  const row: DeliveryRow = { ...delivery, ...set };
  return finalFailure ? { outcome: "failed", row } : { outcome: "retry", delaySeconds: delay, row };
}

const isMessage = (b: unknown): b is WebhookDeliveryMessage =>
  Boolean(b) &&
  typeof (b as WebhookDeliveryMessage).deliveryId === "string" &&
  typeof (b as WebhookDeliveryMessage).tenantId === "string";

/** Runs one queued delivery: idempotent (only pending rows are attempted) and cancelled for disabled endpoints. */
export async function processDelivery(
  env: Env,
  db: ShardDb,
  msg: WebhookDeliveryMessage,
  o: { fetch?: FetchFn; now?: Date; random?: () => number } = {},
) {
  const delivery = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, msg.deliveryId), eq(webhookDeliveries.tenantId, msg.tenantId)))
    .get();
  if (delivery?.status !== "pending") return { outcome: "skipped" as const };
  const sub = await db
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, delivery.subscriptionId), eq(webhookSubscriptions.tenantId, msg.tenantId)))
    .get();
  if (!sub?.isActive) {
    const at = (o.now ?? new Date()).toISOString();
    await db
      .update(webhookDeliveries)
      .set({ status: "cancelled", error: "endpoint disabled", nextAttemptAt: null, updatedAt: at })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, "pending")));
    return { outcome: "cancelled" as const };
  }
  return attemptDelivery(env, db, delivery, sub, o);
}

/** WEBHOOKS consumer: retries follow the delivery schedule, not the queue's own backoff. */
export async function consumeWebhookDeliveries(
  batchOf: MessageBatch<unknown>,
  env: Env,
  shard: ShardDb,
  deps: { fetch?: FetchFn; now?: Date; random?: () => number } = {},
) {
  for (const message of batchOf.messages) {
    if (!isMessage(message.body)) {
      log.warn("malformed webhooks message dropped", { id: message.id });
      message.ack();
      continue;
    }
    try {
      const result = await processDelivery(env, shard, message.body, deps);
      if (result.outcome === "retry") message.retry({ delaySeconds: result.delaySeconds });
      else message.ack();
    } catch (err) {
      // our own failure (D1, decryption), not the endpoint's: the queue's backoff, then its dead-letter queue
      log.error("webhook delivery crashed", { id: message.id, error: String(err) });
      message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  }
}

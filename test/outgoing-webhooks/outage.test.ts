import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { originQueue } from "../../src/background/dead-letter";
import { auditEvents, deadLetters, webhookDeliveries, webhookSubscriptions } from "../../src/db/schema";
import worker from "../../src/index";
import { consumeWebhookDeliveries } from "../../src/modules/outgoing-webhooks/delivery";
import { fanOutEvent } from "../../src/modules/outgoing-webhooks/fanout";
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from "../../src/modules/outgoing-webhooks/schedule";
import { setWebhookFetch } from "../../src/modules/outgoing-webhooks/transport";
import { endpoint, event } from "../automation/helpers";
import { createWorld, db, type World } from "../helpers/seed";
import { newContact, newLocation, outboxFor, pendingRow, waitForStatus } from "../solicitations/helpers";

let w: World;
const HOUR = 3600_000;

beforeAll(async () => {
  w = await createWorld();
});
afterAll(() => setWebhookFetch());

async function subscribe(events: string[]) {
  const res = await w.as("tenantAdmin").post("/v1/webhooks", { url: "https://hooks.example.com/outage", events });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

/** Fans one event out to the subscription and returns its queued WEBHOOKS message. */
async function queuedDelivery(subscriptionId: string) {
  const sent: { tenantId: string; deliveryId: string }[] = [];
  await fanOutEvent(event(w.tenantA.id, "review.created", { reviewId: `r-${Math.random()}` }), env, db(), {
    sendBatch: async (m) => void sent.push(...m.map((x) => x.body)),
  });
  const [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, subscriptionId));
  return sent.find((m) => m.deliveryId === row!.id)!;
}

const deliveryRow = async (id: string) =>
  (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get())!;

/**
 * Drives the WEBHOOKS consumer through the retry schedule with a clock that jumps to each retry,
 * against a receiver that is down until `downFor` has passed. Returns the attempts' times.
 */
async function runSchedule(msg: { tenantId: string; deliveryId: string }, receiverDownFor: number) {
  const t0 = Date.now();
  let now = new Date(t0);
  const receiver = endpoint(() =>
    now.getTime() - t0 < receiverDownFor
      ? new Response("maintenance", { status: 503 })
      : new Response("ok", { status: 200 }),
  );
  const times: number[] = [];
  for (let attempt = 1; attempt <= MAX_ATTEMPTS + 2; attempt++) {
    const batch = createMessageBatch("webhooks", [
      { id: `m-${msg.deliveryId}-${attempt}`, timestamp: now, attempts: attempt, body: msg },
    ]);
    const retry = vi.spyOn(batch.messages[0]!, "retry");
    const ctx = createExecutionContext();
    await consumeWebhookDeliveries(batch, env, db(), { fetch: receiver.fetch, now, random: () => 0.5 });
    const result = await getQueueResult(batch, ctx);
    times.push(now.getTime() - t0);
    if (!result.retryMessages.length) break;
    now = new Date(now.getTime() + retry.mock.calls[0]![0]!.delaySeconds! * 1000);
  }
  return { receiver, times };
}

describe("webhook receiver down for hours", { timeout: 30_000 }, () => {
  it("down for 3 hours: retried on the schedule and delivered once it is back, same webhook-id on every attempt", async () => {
    const sub = await subscribe(["review.created"]);
    const msg = await queuedDelivery(sub.id);
    const { receiver, times } = await runSchedule(msg, 3 * HOUR);
    // 10 s, 1 min, 5 min, 30 min, 2 h (2.6 h in, still down), 5 h: the 7th attempt, 7.6 h in, gets through
    expect(receiver.calls).toHaveLength(7);
    expect(times.at(-1)! / HOUR).toBeCloseTo(RETRY_DELAYS_SECONDS.slice(0, 6).reduce((a, b) => a + b, 0) / 3600, 3);
    expect(new Set(receiver.calls.map((c) => c.headers.get("webhook-id"))).size).toBe(1);
    expect(await deliveryRow(msg.deliveryId)).toMatchObject({
      status: "succeeded",
      attempts: 7,
      responseStatus: 200,
      nextAttemptAt: null,
    });
    expect(
      await db().select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id)).get(),
    ).toMatchObject({ isActive: true, consecutiveFailures: 0, failingSince: null });
    expect(
      await db()
        .select()
        .from(deadLetters)
        .where(eq(deadLetters.messageId, `webhook-delivery:${msg.deliveryId}`)),
    ).toEqual([]);
  });

  it("down for 30 hours: bounded to the schedule's attempts, then dead-lettered, visible to the platform admin and replayable", async () => {
    const sub = await subscribe(["review.created"]);
    const msg = await queuedDelivery(sub.id);
    const { receiver, times } = await runSchedule(msg, 30 * HOUR);
    expect(receiver.calls).toHaveLength(MAX_ATTEMPTS);
    expect(times.at(-1)! / HOUR).toBeLessThan(24);
    const failed = await deliveryRow(msg.deliveryId);
    expect(failed).toMatchObject({
      status: "failed",
      attempts: MAX_ATTEMPTS,
      responseStatus: 503,
      nextAttemptAt: null,
    });

    const listed = await w.as("platformAdmin").get("/admin/dead-letters?queue=webhooks");
    expect(listed.status).toBe(200);
    const dead = listed.body.data.find(
      (d: { messageId: string }) => d.messageId === `webhook-delivery:${msg.deliveryId}`,
    );
    expect(dead).toMatchObject({
      queue: "webhooks",
      attempts: MAX_ATTEMPTS,
      body: { tenantId: w.tenantA.id, deliveryId: msg.deliveryId, subscriptionId: sub.id, error: "HTTP 503" },
    });
    expect((await w.as("tenantAdmin").get("/admin/dead-letters")).status).toBe(403);
    expect((await w.as("tenantAdmin").post(`/admin/dead-letters/${dead.id}/replay`)).status).toBe(403);

    // the receiver is back: the replay redelivers with the same webhook-id, through the real WEBHOOKS queue
    const back = endpoint(() => new Response("ok", { status: 200 }));
    setWebhookFetch(back.fetch);
    const replayed = await w.as("platformAdmin").post(`/admin/dead-letters/${dead.id}/replay`);
    expect(replayed.status).toBe(202);
    expect(replayed.body).toMatchObject({
      id: dead.id,
      queue: "webhooks",
      replayedTo: "webhooks",
      deliveryId: expect.stringMatching(/^whd_/),
    });
    await vi.waitFor(async () => expect((await deliveryRow(replayed.body.deliveryId)).status).toBe("succeeded"), {
      timeout: 10_000,
      interval: 100,
    });
    expect(await deliveryRow(replayed.body.deliveryId)).toMatchObject({
      redeliveryOf: msg.deliveryId,
      messageId: failed.messageId,
      attempts: 1,
    });
    expect(back.calls).toHaveLength(1);
    expect(back.calls[0]!.headers.get("webhook-id")).toBe(failed.messageId);
    expect(back.calls[0]!.body).toBe(receiver.calls[0]!.body);

    // gone from the dead letters, the replay audited; replaying it again is 404
    const after = await w.as("platformAdmin").get("/admin/dead-letters?queue=webhooks");
    expect(after.body.data.map((d: { id: string }) => d.id)).not.toContain(dead.id);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, dead.id), eq(auditEvents.action, "dead_letter.replayed")))
      .get();
    expect(audit).toMatchObject({
      tenantId: w.tenantA.id,
      actorType: "platform_admin",
      metadata: expect.objectContaining({ queue: "webhooks", deliveryId: replayed.body.deliveryId }),
    });
    expect((await w.as("platformAdmin").post(`/admin/dead-letters/${dead.id}/replay`)).status).toBe(404);
    setWebhookFetch();
  });

  it("a dead letter of a disabled endpoint is not replayed (409) and stays visible", async () => {
    const sub = await subscribe(["review.created"]);
    const msg = await queuedDelivery(sub.id);
    await runSchedule(msg, 30 * HOUR);
    await w.as("tenantAdmin").patch(`/v1/webhooks/${sub.id}`, { isActive: false });
    const dead = await db()
      .select()
      .from(deadLetters)
      .where(eq(deadLetters.messageId, `webhook-delivery:${msg.deliveryId}`))
      .get();
    const res = await w.as("platformAdmin").post(`/admin/dead-letters/${dead!.id}/replay`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
    expect(await db().select().from(deadLetters).where(eq(deadLetters.id, dead!.id))).toHaveLength(1);
  });
});

describe("dead-lettered queue messages", { timeout: 30_000 }, () => {
  it("a SENDS message that exhausted its retries is stored under its queue, listed, and replayed until SENT once", async () => {
    const loc = await newLocation(w);
    const c = await newContact(w);
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    // what the runtime hands the one dead-letter queue after max_retries (a crashing consumer)
    const batch = createMessageBatch("dead-letter", [
      { id: `dl-${id}`, timestamp: new Date(), attempts: 6, body: { solicitationId: id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);

    const listed = await w.as("platformAdmin").get("/admin/dead-letters?queue=sends");
    const dead = listed.body.data.find((d: { messageId: string }) => d.messageId === `dl-${id}`);
    expect(dead).toMatchObject({ queue: "sends", body: { solicitationId: id }, attempts: 6 });
    const res = await w.as("platformAdmin").post(`/admin/dead-letters/${dead.id}/replay`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      id: dead.id,
      queue: "sends",
      messageId: `dl-${id}`,
      replayedTo: "sends",
      deliveryId: null,
    });
    const row = await waitForStatus(id, "SENT");
    expect(row.provider).toBe("outbox");
    // a second replay of the same message would be harmless (send record), but the dead letter is gone
    expect((await w.as("platformAdmin").post(`/admin/dead-letters/${dead.id}/replay`)).status).toBe(404);
    expect(await outboxFor(id)).toHaveLength(1);
  });

  it("knows each queue's messages; an unknown shape keeps the dead-letter queue's name and is not replayed (409)", async () => {
    expect(originQueue({ solicitationId: "s" })).toBe("sends");
    expect(originQueue(event("t", "review.created", { reviewId: "r" }))).toBe("events");
    expect(originQueue({ tenantId: "t", deliveryId: "d" })).toBe("webhooks");
    expect(originQueue({ type: "crm_import", tenantId: "t", jobId: "j" })).toBe("jobs");
    // a tenant move's next slice travels on the jobs queue too (src/modules/admin/background.ts)
    expect(originQueue({ kind: "tenant_move", moveId: "m", step: 3 })).toBe("jobs");
    expect(originQueue({ clicks: [] })).toBe("clicks");
    expect(originQueue({ tenantId: "t", integrationId: "i", cursor: null, since: null, startedAt: "x" })).toBe(
      "review-sync",
    );
    expect(originQueue({ something: 1 })).toBeNull();
    const batch = createMessageBatch("dead-letter", [
      { id: "dl-odd", timestamp: new Date(), attempts: 9, body: { something: 1 } },
    ]);
    await worker.queue(batch, env, createExecutionContext());
    const odd = await db().select().from(deadLetters).where(eq(deadLetters.messageId, "dl-odd")).get();
    expect(odd!.queue).toBe("dead-letter");
    const res = await w.as("platformAdmin").post(`/admin/dead-letters/${odd!.id}/replay`);
    expect(res.status).toBe(409);
    expect((await w.as("platformAdmin").post("/admin/dead-letters/nope/replay")).status).toBe(404);
  });
});

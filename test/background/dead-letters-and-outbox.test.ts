import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DISPATCHED_EVENT_TTL_DAYS } from "../../src/background/events";
import { deadLetters, domainEvents } from "../../src/db/schema";
import worker from "../../src/index";
import { commit } from "../../src/lib/commit";
import { dispatchStaleEvents, eventStatement, STALE_EVENT_MS } from "../../src/lib/events";
import { db } from "../helpers/seed";

describe("dead-letter consumer", () => {
  it("stores exhausted messages once, even when the batch is redelivered", async () => {
    const messages = [
      { id: "msg-1", timestamp: new Date(), attempts: 6, body: { solicitationId: "s1" } },
      { id: "msg-2", timestamp: new Date(), attempts: 6, body: { solicitationId: "s2" } },
    ];
    for (let round = 0; round < 2; round++) {
      const ctx = createExecutionContext();
      const batch = createMessageBatch("dead-letter", messages);
      await worker.queue(batch, env, ctx);
      const result = await getQueueResult(batch, ctx);
      expect(result.ackAll).toBe(true);
    }
    const rows = await db().select().from(deadLetters);
    expect(rows.map((r) => [r.messageId, r.attempts, r.body])).toEqual([
      ["msg-1", 6, { solicitationId: "s1" }],
      ["msg-2", 6, { solicitationId: "s2" }],
    ]);
  });

  it("throws on a queue without a consumer: the runtime retries the batch, then dead-letters it (never dropped)", async () => {
    const ctx = createExecutionContext();
    const batch = createMessageBatch("some-future-queue", [{ id: "m", timestamp: new Date(), attempts: 1, body: {} }]);
    await expect(worker.queue(batch, env, ctx)).rejects.toThrow("no consumer for queue some-future-queue");
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.ackAll).toBe(false);
  });
});

describe("domain events outbox", () => {
  it("commits the event with the change, hands it to the EVENTS queue after commit, and the consumer marks it dispatched", async () => {
    const work: Promise<unknown>[] = [];
    const sent: unknown[] = [];
    const events = { sendBatch: async (batch: { body: unknown }[]) => void sent.push(...batch.map((m) => m.body)) };
    const ctx = {
      db: db(),
      env: { ...env, EVENTS: events as unknown as Queue },
      tenantId: "tenant_x",
      defer: (p: Promise<unknown>) => void work.push(p),
    };
    const pending = eventStatement(ctx, "contact.suppressed", { contactId: "c1" });
    await commit(ctx, [], [pending]);
    const stored = async () =>
      (await db().select().from(domainEvents).where(eq(domainEvents.id, pending.event.id)).get())!;
    expect(await stored()).toMatchObject({
      tenantId: "tenant_x",
      type: "contact.suppressed",
      data: { contactId: "c1" },
      dispatchedAt: null,
    });
    await Promise.all(work);
    expect(sent).toEqual([pending.event]);
    expect((await stored()).dispatchedAt).toBeNull();

    const exec = createExecutionContext();
    const batch = createMessageBatch(
      "events",
      sent.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
    );
    await worker.queue(batch, env, exec);
    const result = await getQueueResult(batch, exec);
    expect([result.explicitAcks, result.retryMessages]).toEqual([["m0"], []]);
    const first = (await stored()).dispatchedAt;
    expect(first).not.toBeNull();
    // a redelivery keeps the first mark
    await new Promise((r) => setTimeout(r, 5));
    const again = createExecutionContext();
    await worker.queue(
      createMessageBatch(
        "events",
        sent.map((body, i) => ({ id: `r${i}`, timestamp: new Date(), attempts: 2, body })),
      ),
      env,
      again,
    );
    await waitOnExecutionContext(again);
    expect((await stored()).dispatchedAt).toBe(first);
  });

  it("sends events whose hand-off was lost from the sweep", async () => {
    const lost = eventStatement({ db: db(), tenantId: "tenant_x" }, "review.created", { reviewId: "r1" });
    await db()
      .insert(domainEvents)
      .values({
        ...lost.event,
        occurredAt: new Date(Date.now() - STALE_EVENT_MS - 1000).toISOString(),
        dispatchedAt: null,
      });
    // handed off two minutes ago and still in the queue behind a campaign: not sent again yet
    const queued = eventStatement({ db: db(), tenantId: "tenant_x" }, "review.created", { reviewId: "r2" });
    await db()
      .insert(domainEvents)
      .values({ ...queued.event, occurredAt: new Date(Date.now() - 2 * 60_000).toISOString(), dispatchedAt: null });
    expect(await dispatchStaleEvents(db(), env)).toBe(1);
    expect(await dispatchStaleEvents(db(), env)).toBe(0);
  });

  it("runs the sweep from the frequent cron trigger", async () => {
    const lost = eventStatement({ db: db(), tenantId: "tenant_y" }, "review.updated", {});
    await db()
      .insert(domainEvents)
      .values({
        ...lost.event,
        occurredAt: new Date(Date.now() - STALE_EVENT_MS - 1000).toISOString(),
        dispatchedAt: null,
      });
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/5 * * * *", scheduledTime: Date.now() }), env);
    await waitOnExecutionContext(ctx);
    const row = await db().select().from(domainEvents).where(eq(domainEvents.id, lost.event.id)).get();
    expect(row!.dispatchedAt).not.toBeNull();
  });
});

describe("dispatched events purge", () => {
  it("deletes dispatched events past the TTL from the daily cron, keeps newer and undispatched ones", async () => {
    const day = 24 * 3600_000;
    const at = (ms: number) => new Date(Date.now() - ms).toISOString();
    const make = (dispatchedAgo: number | null, occurredAgo: number) => {
      const e = eventStatement({ db: db(), tenantId: "tenant_purge" }, "review.created", {}).event;
      return { ...e, occurredAt: at(occurredAgo), dispatchedAt: dispatchedAgo === null ? null : at(dispatchedAgo) };
    };
    const ttl = DISPATCHED_EVENT_TTL_DAYS * day;
    const old = Array.from({ length: 5 }, () => make(ttl + day, ttl + day));
    const recent = make(ttl - day, ttl + day); // occurred long ago, dispatched late: its redelivery window is still open
    const neverSent = make(null, ttl + 2 * day); // the stale sweep still owes it
    await db()
      .insert(domainEvents)
      .values([...old, recent, neverSent]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: Date.now() }), env);
    await waitOnExecutionContext(ctx);
    const left = (
      await db().select({ id: domainEvents.id }).from(domainEvents).where(eq(domainEvents.tenantId, "tenant_purge"))
    )
      .map((r) => r.id)
      .sort();
    expect(left).toEqual([recent.id, neverSent.id].sort());
  });
});

describe("rate limiter Durable Object", () => {
  it("allows up to the limit per window, then answers with a retry-after", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("test-key"));
    const t0 = Date.parse("2026-01-01T00:00:10.000Z");
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await stub.hit(3, 60, t0));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results[3]).toEqual({ allowed: false, remaining: 0, retryAfter: 50 });
    expect((await stub.hit(3, 60, t0 + 60_000)).allowed).toBe(true);
    const stored = await runInDurableObject(stub, (_i, state) => state.storage.get("w"));
    expect(stored).toEqual({ start: t0 - 10_000 + 60_000, count: 1 });
  });
});

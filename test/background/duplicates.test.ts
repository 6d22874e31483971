import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { domainEvents, linkClicks, webhookDeliveries } from "../../src/db/schema";
import type { EventEnvelope } from "../../src/lib/events";
import type { ClickMessage } from "../../src/modules/links/clicks";
import { fanOutEvent } from "../../src/modules/outgoing-webhooks/fanout";
import { setWebhookFetch } from "../../src/modules/outgoing-webhooks/transport";
import { EVENT_HANDLERS, queueConsumers, WIRING } from "../../src/wiring";
import { createWorker } from "../../src/worker";
import { endpoint, event } from "../automation/helpers";
import { createWorld, db, type World } from "../helpers/seed";
import { newContact, newLocation, pendingRow, solicitationRow } from "../solicitations/helpers";

let w: World;
const handled: string[] = [];
// the real wiring plus one counting handler
const counter = { name: "reliability-counter", handle: async (e: EventEnvelope) => void handled.push(e.id) };
const worker = createWorker({ ...WIRING, queues: queueConsumers([...EVENT_HANDLERS, counter]) });

beforeAll(async () => {
  w = await createWorld();
});
afterAll(() => setWebhookFetch());

/** One batch of `queue` through the Worker's queue handler, as the runtime delivers it. */
async function deliver(queue: string, bodies: unknown[], attempts = 1) {
  const batch = createMessageBatch(
    queue,
    bodies.map((body, i) => ({ id: `${queue}-${i}-${Math.random()}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

describe("duplicate queue delivery", { timeout: 30_000 }, () => {
  it("EVENTS: an event delivered twice in one batch, then again later, runs each handler once and every copy is acked", async () => {
    const e: EventEnvelope = event(w.tenantA.id, "contact.suppressed", {
      contactId: "c-dup",
      suppressedAt: new Date().toISOString(),
      reason: null,
    });
    const first = await deliver("events", [e, e]);
    expect(first.retryMessages).toEqual([]);
    expect(first.explicitAcks).toHaveLength(2);
    const again = await deliver("events", [e], 2);
    expect(again.explicitAcks).toHaveLength(1);
    expect(handled.filter((id) => id === e.id)).toHaveLength(1);
  });

  it("WEBHOOKS: a delivery message delivered twice in one batch and once more later posts once", async () => {
    const sub = await w
      .as("tenantAdmin")
      .post("/v1/webhooks", { url: "https://hooks.example.com/dup", events: ["review.created"] });
    expect(sub.status).toBe(201);
    const sent: { tenantId: string; deliveryId: string }[] = [];
    const e = event(w.tenantA.id, "review.created", { reviewId: "r-dup" });
    const sink = {
      sendBatch: async (m: { body: { tenantId: string; deliveryId: string } }[]) =>
        void sent.push(...m.map((x) => x.body)),
    };
    // the fan-out itself re-run (its EVENTS handler crashed after writing): still one delivery row
    await fanOutEvent(e, env, db(), sink);
    await fanOutEvent(e, env, db(), sink);
    const rows = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, sub.body.id));
    expect(rows).toHaveLength(1);
    const receiver = endpoint();
    setWebhookFetch(receiver.fetch);
    const msg = sent[0]!;
    await deliver("webhooks", [msg, msg]);
    await deliver("webhooks", [msg], 2);
    setWebhookFetch();
    expect(receiver.calls).toHaveLength(1);
    expect(
      await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, rows[0]!.id)).get(),
    ).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("CLICKS: the same clicks delivered twice in one batch and again later are recorded once, with one clicked event", async () => {
    const loc = await newLocation(w);
    const c = await newContact(w);
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    const clicks: ClickMessage[] = [
      {
        id: crypto.randomUUID(),
        tenantId: w.tenantA.id,
        solicitationId: id,
        source: "redirect",
        at: "2026-11-01T10:00:00.000Z",
      },
      {
        id: crypto.randomUUID(),
        tenantId: w.tenantA.id,
        solicitationId: id,
        source: "api",
        at: "2026-11-01T10:05:00.000Z",
      },
    ];
    const first = await deliver("clicks", [{ clicks }, { clicks }]);
    expect(first.retryMessages).toEqual([]);
    await deliver("clicks", [{ clicks: [...clicks].reverse() }], 2);
    const rows = await db().select().from(linkClicks).where(eq(linkClicks.solicitationId, id));
    expect(rows.map((r) => r.id).sort()).toEqual(clicks.map((x) => x.id).sort());
    expect((await solicitationRow(id))!.clickedAt).toBe("2026-11-01T10:00:00.000Z");
    const clicked = (
      await db().select().from(domainEvents).where(eq(domainEvents.type, "solicitation.clicked"))
    ).filter((x) => x.data.solicitationId === id);
    expect(clicked).toHaveLength(1);
  });
});

import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auditEvents, deadLetters, webhookDeliveries, webhookSubscriptions } from "../../src/db/schema";
import { consumeWebhookDeliveries, processDelivery } from "../../src/modules/outgoing-webhooks/delivery";
import { fanOutEvent } from "../../src/modules/outgoing-webhooks/fanout";
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, retryDelaySeconds } from "../../src/modules/outgoing-webhooks/schedule";
import { setWebhookFetch } from "../../src/modules/outgoing-webhooks/transport";
import { endpoint, env, event, verifyStandardWebhook } from "../automation/helpers";
import { createWorld, db, type World } from "../helpers/seed";
import { ingest, newLocation } from "../reviews/helpers";

let w: World;
const HOOK = "https://hooks.example.com/reputation";

beforeAll(async () => {
  w = await createWorld();
});
afterAll(() => setWebhookFetch());

const subscribe = async (body: Record<string, unknown> = {}) => {
  const res = await w.as("tenantAdmin").post("/v1/webhooks", { url: HOOK, events: ["review.created"], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string; [k: string]: any };
};

/** Captures what the fan-out would put on the WEBHOOKS queue. */
const queue = () => {
  const sent: { tenantId: string; deliveryId: string }[] = [];
  return {
    sent,
    sendBatch: async (m: { body: { tenantId: string; deliveryId: string } }[]) =>
      void sent.push(...m.map((x) => x.body)),
  };
};

/** The queued message of this subscription's delivery. */
const messageFor = async (q: ReturnType<typeof queue>, subscriptionId: string) => {
  const rows = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, subscriptionId));
  return q.sent.find((m) => rows.some((r) => r.id === m.deliveryId))!;
};

const deliveryRow = async (id: string) =>
  (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get())!;
const subRow = async (id: string) =>
  (await db().select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).get())!;

describe("webhook subscriptions CRUD", () => {
  it("creates a subscription and shows the whsec_ secret only once", async () => {
    const created = await subscribe({
      events: ["review.created", "review.negative", "review.created"],
      description: "CRM sync",
    });
    expect(created).toMatchObject({
      url: HOOK,
      events: ["review.created", "review.negative"],
      isActive: true,
      description: "CRM sync",
      tenantId: w.tenantA.id,
      consecutiveFailures: 0,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await w.as("viewer").get(`/v1/webhooks/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(JSON.stringify(got.body)).not.toContain("whsec_");
    const list = await w.as("viewer").get("/v1/webhooks?limit=1");
    expect(list.body.data).toHaveLength(1);
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    const stored = await subRow(created.id);
    expect(stored.secretEncrypted.startsWith("v1.")).toBe(true);
    expect(stored.secretEncrypted).not.toContain(created.secret.slice(6, 20));
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, created.id), eq(auditEvents.action, "webhook.created")))
      .get();
    expect(audit!.nextState).toMatchObject({ url: HOOK, events: ["review.created", "review.negative"] });
    expect(JSON.stringify(audit)).not.toContain("secret_encrypted");
    expect(JSON.stringify(audit)).not.toContain(stored.secretEncrypted);
  });

  it("accepts ['*'] and refuses unknown events, '*' mixed with others, and an empty list", async () => {
    expect((await subscribe({ events: ["*"] })).events).toEqual(["*"]);
    for (const events of [["review.exploded"], ["*", "review.created"], []]) {
      const res = await w.as("tenantAdmin").post("/v1/webhooks", { url: HOOK, events });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.details.issues[0].path).toMatch(/^events/);
    }
  });

  it.each([
    "http://hooks.example.com/x",
    "https://127.0.0.1/x",
    "https://10.0.0.1/x",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/x",
    "file:///etc/passwd",
    "http://2130706433/",
    "https://2130706433/",
    "http://0x7f.1/",
    "https://0x7f.1/",
    "http://017700000001/",
    "https://017700000001/",
    "https://metadata.google.internal/",
    "https://user:pw@hooks.example.com/",
  ])("refuses %s with a 400 on url", async (url) => {
    const res = await w.as("tenantAdmin").post("/v1/webhooks", { url, events: ["*"] });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "url", message: expect.stringMatching(/^URL refused: /) }]);
  });

  it("updates, re-checks the URL on update, and deletes", async () => {
    const sub = await subscribe();
    const bad = await w.as("tenantAdmin").patch(`/v1/webhooks/${sub.id}`, { url: "https://192.168.0.10/hook" });
    expect(bad.status).toBe(400);
    const ok = await w
      .as("tenantAdmin")
      .patch(`/v1/webhooks/${sub.id}`, { events: ["inbox.overdue"], isActive: false });
    expect(ok.body).toMatchObject({ events: ["inbox.overdue"], isActive: false, url: HOOK });
    const unknownField = await w.as("tenantAdmin").patch(`/v1/webhooks/${sub.id}`, { secret: "whsec_x" });
    expect(unknownField.status).toBe(400);
    const del = await w.as("tenantAdmin").delete(`/v1/webhooks/${sub.id}`);
    expect(del.status).toBe(204);
    expect((await w.as("viewer").get(`/v1/webhooks/${sub.id}`)).status).toBe(404);
    const audits = await db()
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.resourceId, sub.id));
    expect(audits.map((a) => a.action).sort()).toEqual(["webhook.created", "webhook.deleted", "webhook.updated"]);
  });

  it("is tenant_admin only for writes and 404 for another tenant's subscription", async () => {
    const sub = await subscribe();
    for (const who of ["viewer", "tenantUser", "manager"] as const) {
      expect((await w.as(who).post("/v1/webhooks", { url: HOOK, events: ["*"] })).status).toBe(403);
      expect((await w.as(who).post(`/v1/webhooks/${sub.id}/rotate-secret`)).status).toBe(403);
    }
    const b = w.as("tenantBAdmin");
    expect((await b.get(`/v1/webhooks/${sub.id}`)).status).toBe(404);
    expect((await b.patch(`/v1/webhooks/${sub.id}`, { isActive: false })).status).toBe(404);
    expect((await b.delete(`/v1/webhooks/${sub.id}`)).status).toBe(404);
    expect((await b.post(`/v1/webhooks/${sub.id}/rotate-secret`)).status).toBe(404);
    expect((await b.post(`/v1/webhooks/${sub.id}/test`)).status).toBe(404);
    expect((await b.get(`/v1/webhooks/${sub.id}/deliveries`)).status).toBe(404);
    const bList = await b.get("/v1/webhooks");
    expect(bList.body.data.map((s: { id: string }) => s.id)).not.toContain(sub.id);
  });
});

describe("delivery", () => {
  it("fans an event out to matching subscriptions and signs the request per Standard Webhooks", async () => {
    const sub = await subscribe({ events: ["review.negative"] });
    const all = await subscribe({ events: ["*"] });
    const other = await subscribe({ events: ["inbox.overdue"] });
    const q = queue();
    const e = event(w.tenantA.id, "review.negative", {
      reviewId: "r1",
      locationId: "l1",
      siteType: "google",
      rating: 1,
      sentiment: "negative",
      topics: ["staff"],
    });
    expect(await fanOutEvent(e, env, db(), q)).toBeGreaterThanOrEqual(2);
    const mine = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, e.id));
    expect(mine.map((d) => d.subscriptionId)).toEqual(expect.arrayContaining([sub.id, all.id]));
    expect(mine.map((d) => d.subscriptionId)).not.toContain(other.id);
    // running the fan-out again (a redelivered event) adds nothing
    await fanOutEvent(e, env, db(), queue());
    expect(await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, e.id))).toHaveLength(
      mine.length,
    );

    const site = endpoint(() => new Response("received", { status: 202 }));
    const msg = await messageFor(q, sub.id);
    const before = Math.floor(Date.now() / 1000);
    const result = await processDelivery(env, db(), msg, { fetch: site.fetch });
    expect(result.outcome).toBe("succeeded");

    const [call] = site.calls;
    expect(call).toMatchObject({ url: HOOK, method: "POST", redirect: "manual", hasSignal: true });
    expect(call!.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(call!.body)).toEqual({
      id: e.id,
      type: "review.negative",
      timestamp: e.occurredAt,
      tenantId: w.tenantA.id,
      data: e.data,
    });
    expect(call!.headers.get("webhook-id")).toMatch(/^msg_/);
    expect(Number(call!.headers.get("webhook-timestamp"))).toBeGreaterThanOrEqual(before);
    expect(call!.headers.get("webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(await verifyStandardWebhook(sub.secret, call!.headers, call!.body)).toBe(true);
    // the other subscription's secret does not verify, nor does a tampered body
    expect(await verifyStandardWebhook(all.secret, call!.headers, call!.body)).toBe(false);
    expect(await verifyStandardWebhook(sub.secret, call!.headers, call!.body.replace("negative", "positive"))).toBe(
      false,
    );

    const row = await deliveryRow(msg.deliveryId);
    expect(row).toMatchObject({
      status: "succeeded",
      attempts: 1,
      responseStatus: 202,
      responseBody: "received",
      error: null,
      nextAttemptAt: null,
    });
    expect(row.latencyMs).toBeGreaterThanOrEqual(0);
    // a second copy of the message is a no-op
    expect((await processDelivery(env, db(), msg, { fetch: site.fetch })).outcome).toBe("skipped");
    expect(site.calls).toHaveLength(1);
  });

  it("signs with the new secret after rotate-secret", async () => {
    const sub = await subscribe();
    const rotated = await w.as("tenantAdmin").post(`/v1/webhooks/${sub.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(sub.secret);
    const q = queue();
    await fanOutEvent(event(w.tenantA.id, "review.created", { reviewId: "r2" }), env, db(), q);
    const site = endpoint();
    await processDelivery(env, db(), await messageFor(q, sub.id), { fetch: site.fetch });
    const call = site.calls.at(-1)!;
    expect(await verifyStandardWebhook(rotated.body.secret, call.headers, call.body)).toBe(true);
    expect(await verifyStandardWebhook(sub.secret, call.headers, call.body)).toBe(false);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, sub.id), eq(auditEvents.action, "webhook.secret_rotated")))
      .get();
    expect(JSON.stringify(audit)).not.toContain(rotated.body.secret);
  });

  it("retries on the documented schedule with jitter, then fails the delivery and dead-letters it", async () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([10, 60, 300, 1800, 7200, 18000, 28800, 28800]);
    expect(RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0) / 3600).toBeCloseTo(23.6, 1);
    expect(retryDelaySeconds(1, () => 0)).toBe(9);
    expect(retryDelaySeconds(1, () => 1)).toBe(11);
    expect(retryDelaySeconds(4, () => 0.5)).toBe(1800);
    expect(retryDelaySeconds(MAX_ATTEMPTS)).toBeNull();

    const sub = await subscribe({ events: ["experiment.completed"] });
    const q = queue();
    await fanOutEvent(
      event(w.tenantA.id, "experiment.completed", { experimentId: "x", campaignId: "c", winnerVariantId: null }),
      env,
      db(),
      q,
    );
    const msg = await messageFor(q, sub.id);
    const down = endpoint(() => new Response("upstream down", { status: 503 }));
    let now = new Date();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const batch = createMessageBatch("webhooks", [
        { id: `m-${attempt}`, timestamp: now, attempts: attempt, body: msg },
      ]);
      const retry = vi.spyOn(batch.messages[0]!, "retry");
      const ctx = createExecutionContext();
      await consumeWebhookDeliveries(batch, env, db(), { fetch: down.fetch, now, random: () => 0.5 });
      const result = await getQueueResult(batch, ctx);
      if (attempt < MAX_ATTEMPTS) {
        expect(result.retryMessages).toHaveLength(1);
        delays.push(retry.mock.calls[0]![0]!.delaySeconds!);
        const row = await deliveryRow(msg.deliveryId);
        expect(row).toMatchObject({ status: "pending", attempts: attempt, responseStatus: 503, error: "HTTP 503" });
        expect(row.nextAttemptAt).toBe(new Date(now.getTime() + delays.at(-1)! * 1000).toISOString());
      } else {
        expect(result.explicitAcks).toEqual([`m-${attempt}`]);
      }
      now = new Date(now.getTime() + (delays.at(-1) ?? 0) * 1000);
    }
    expect(delays).toEqual([...RETRY_DELAYS_SECONDS]);
    expect(down.calls).toHaveLength(MAX_ATTEMPTS);
    expect(await deliveryRow(msg.deliveryId)).toMatchObject({
      status: "failed",
      attempts: MAX_ATTEMPTS,
      nextAttemptAt: null,
    });
    const dead = await db()
      .select()
      .from(deadLetters)
      .where(eq(deadLetters.messageId, `webhook-delivery:${msg.deliveryId}`))
      .get();
    expect(dead).toMatchObject({
      queue: "webhooks",
      attempts: MAX_ATTEMPTS,
      body: { deliveryId: msg.deliveryId, subscriptionId: sub.id },
    });
  });

  it("does not follow redirects and times requests out", async () => {
    const sub = await subscribe({ events: ["contact.suppressed"] });
    const q = queue();
    await fanOutEvent(
      event(w.tenantA.id, "contact.suppressed", {
        contactId: "c1",
        suppressedAt: "2026-01-01T00:00:00Z",
        reason: null,
      }),
      env,
      db(),
      q,
    );
    const mine = (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, sub.id)))[0]!;
    const redirecting = endpoint(
      () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }),
    );
    const r = await processDelivery(
      env,
      db(),
      { tenantId: w.tenantA.id, deliveryId: mine.id },
      { fetch: redirecting.fetch },
    );
    expect(r.outcome).toBe("retry");
    expect(redirecting.calls).toHaveLength(1);
    expect(await deliveryRow(mine.id)).toMatchObject({ responseStatus: 302, error: "redirect 302 not followed" });
    const hanging = endpoint(() => Promise.reject(new DOMException("The operation timed out.", "TimeoutError")));
    await processDelivery(env, db(), { tenantId: w.tenantA.id, deliveryId: mine.id }, { fetch: hanging.fetch });
    expect(await deliveryRow(mine.id)).toMatchObject({
      attempts: 2,
      responseStatus: null,
      error: "timed out after 10 s",
    });
  });

  it("disables an endpoint whose attempts have all failed for 24 hours, with an audit event, and cancels what is still queued", async () => {
    const sub = await subscribe({ events: ["campaign.sent"] });
    const q = queue();
    for (let i = 0; i < 2; i++)
      await fanOutEvent(
        event(w.tenantA.id, "campaign.sent", {
          campaignId: `c${i}`,
          locationId: null,
          total: 1,
          queued: 1,
          blocked: 0,
          failed: 0,
        }),
        env,
        db(),
        q,
      );
    const [first, second] = await db()
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, sub.id))
      .orderBy(webhookDeliveries.createdAt);
    const down = endpoint(() => new Response("no", { status: 500 }));
    await processDelivery(env, db(), { tenantId: w.tenantA.id, deliveryId: first!.id }, { fetch: down.fetch });
    expect(await subRow(sub.id)).toMatchObject({ isActive: true, consecutiveFailures: 1 });
    const failingSince = (await subRow(sub.id)).failingSince!;
    const later = new Date(Date.parse(failingSince) + 24 * 3600 * 1000 + 1000);
    await processDelivery(
      env,
      db(),
      { tenantId: w.tenantA.id, deliveryId: first!.id },
      { fetch: down.fetch, now: later },
    );
    const disabled = await subRow(sub.id);
    expect(disabled).toMatchObject({
      isActive: false,
      consecutiveFailures: 2,
      disabledAt: later.toISOString(),
      failingSince,
    });
    expect(disabled.disabledReason).toContain("HTTP 500");
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, sub.id), eq(auditEvents.action, "webhook.auto_disabled")))
      .get();
    expect(audit).toMatchObject({ actorType: "system", tenantId: w.tenantA.id, nextState: { isActive: false } });
    expect((await w.as("viewer").get(`/v1/webhooks/${sub.id}`)).body).toMatchObject({
      isActive: false,
      disabledReason: disabled.disabledReason,
    });

    expect(
      (await processDelivery(env, db(), { tenantId: w.tenantA.id, deliveryId: second!.id }, { fetch: down.fetch }))
        .outcome,
    ).toBe("cancelled");
    expect(await deliveryRow(second!.id)).toMatchObject({ status: "cancelled", attempts: 0 });
    expect(down.calls).toHaveLength(2);
    // a disabled endpoint receives no new deliveries; re-enabling resets the bookkeeping
    const later9 = event(w.tenantA.id, "campaign.sent", { campaignId: "c9" });
    await fanOutEvent(later9, env, db(), queue());
    expect(
      await db()
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.subscriptionId, sub.id), eq(webhookDeliveries.eventId, later9.id))),
    ).toEqual([]);
    const reenabled = await w.as("tenantAdmin").patch(`/v1/webhooks/${sub.id}`, { isActive: true });
    expect(reenabled.body).toMatchObject({
      isActive: true,
      failingSince: null,
      consecutiveFailures: 0,
      disabledAt: null,
      disabledReason: null,
    });
  });

  it("refuses at delivery time a URL that became unsafe, without retrying", async () => {
    const sub = await subscribe({ events: ["inbox.assigned"] });
    await db()
      .update(webhookSubscriptions)
      .set({ url: "https://10.1.2.3/hook" })
      .where(eq(webhookSubscriptions.id, sub.id));
    const q = queue();
    await fanOutEvent(event(w.tenantA.id, "inbox.assigned", { inboxItemId: "i1" }), env, db(), q);
    const row = (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, sub.id)))[0]!;
    const never = endpoint();
    const r = await processDelivery(env, db(), { tenantId: w.tenantA.id, deliveryId: row.id }, { fetch: never.fetch });
    expect(r.outcome).toBe("failed");
    expect(never.calls).toHaveLength(0);
    expect(await deliveryRow(row.id)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("URL refused: private address"),
    });
  });

  it("ignores another tenant's events", async () => {
    await subscribe({ events: ["*"] });
    const q = queue();
    await fanOutEvent(event(w.tenantB.id, "review.created", { reviewId: "rb" }), env, db(), q);
    expect(q.sent).toEqual([]);
  });
});

describe("delivery log, test and redeliver", () => {
  it("sends a signed webhook.test through the API and logs it", async () => {
    const sub = await subscribe();
    const site = endpoint(() => new Response("pong", { status: 200 }));
    setWebhookFetch(site.fetch);
    const res = await w.as("tenantAdmin").post(`/v1/webhooks/${sub.id}/test`);
    setWebhookFetch();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscriptionId: sub.id,
      eventType: "webhook.test",
      status: "succeeded",
      attempts: 1,
      responseStatus: 200,
      responseBody: "pong",
    });
    expect(site.calls).toHaveLength(1);
    expect(JSON.parse(site.calls[0]!.body)).toMatchObject({ type: "webhook.test", data: { webhookId: sub.id } });
    expect(await verifyStandardWebhook(sub.secret, site.calls[0]!.headers, site.calls[0]!.body)).toBe(true);

    const failing = endpoint(() => new Response("nope", { status: 401 }));
    setWebhookFetch(failing.fetch);
    const failed = await w.as("tenantAdmin").post(`/v1/webhooks/${sub.id}/test`);
    setWebhookFetch();
    expect(failed.body).toMatchObject({
      status: "failed",
      responseStatus: 401,
      error: "HTTP 401",
      nextAttemptAt: null,
    });
    // a test never counts towards auto-disable
    expect(await subRow(sub.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null });
  });

  it("pages the delivery log newest first and redelivers with the same webhook-id", async () => {
    const sub = await subscribe({ events: ["response.published"] });
    const q = queue();
    for (let i = 0; i < 3; i++)
      await fanOutEvent(
        event(w.tenantA.id, "response.published", { responseId: `p${i}`, reviewId: "r", status: "published" }),
        env,
        db(),
        q,
      );
    const page1 = await w.as("viewer").get(`/v1/webhooks/${sub.id}/deliveries?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.total).toBe(3);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.pageInfo.hasNextPage).toBe(true);
    const page2 = await w
      .as("viewer")
      .get(`/v1/webhooks/${sub.id}/deliveries?limit=2&cursor=${page1.body.pageInfo.endCursor}`);
    expect(page2.body.data).toHaveLength(1);
    const ids = [...page1.body.data, ...page2.body.data].map(
      (d: { payload: { data: { responseId: string } } }) => d.payload.data.responseId,
    );
    expect(ids).toEqual(["p2", "p1", "p0"]);
    expect(page1.body.data[0]).toMatchObject({ status: "pending", attempts: 0, eventType: "response.published" });
    expect((await w.as("viewer").get(`/v1/webhooks/${sub.id}/deliveries?status=succeeded`)).body.total).toBe(0);

    const original = page2.body.data[0];
    const site = endpoint(() => new Response("", { status: 500 }));
    await processDelivery(env, db(), { tenantId: w.tenantA.id, deliveryId: original.id }, { fetch: site.fetch });
    const again = await w.as("tenantAdmin").post(`/v1/webhooks/${sub.id}/deliveries/${original.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({
      redeliveryOf: original.id,
      messageId: original.messageId,
      eventId: original.eventId,
      status: "pending",
      attempts: 0,
    });
    expect(again.body.id).not.toBe(original.id);
    const ok = endpoint();
    await processDelivery(env, db(), { tenantId: w.tenantA.id, deliveryId: again.body.id }, { fetch: ok.fetch });
    expect(ok.calls[0]!.headers.get("webhook-id")).toBe(original.messageId);
    expect(ok.calls[0]!.body).toBe(JSON.stringify(original.payload));
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, again.body.id), eq(auditEvents.action, "webhook.redelivered")))
      .get();
    expect(audit!.metadata).toMatchObject({ redeliveryOf: original.id });

    expect((await w.as("viewer").post(`/v1/webhooks/${sub.id}/deliveries/${original.id}/redeliver`)).status).toBe(403);
    expect((await w.as("tenantAdmin").post(`/v1/webhooks/${sub.id}/deliveries/nope/redeliver`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").post(`/v1/webhooks/${sub.id}/deliveries/${original.id}/redeliver`)).status).toBe(
      404,
    );
    await w.as("tenantAdmin").patch(`/v1/webhooks/${sub.id}`, { isActive: false });
    const refused = await w.as("tenantAdmin").post(`/v1/webhooks/${sub.id}/deliveries/${original.id}/redeliver`);
    expect(refused.status).toBe(409);
  });

  it("delivers end to end: an ingested review reaches the endpoint through EVENTS and WEBHOOKS", async () => {
    const sub = await subscribe({ events: ["review.created"] });
    const loc = await newLocation(w);
    const site = endpoint();
    setWebhookFetch(site.fetch);
    try {
      const review = await ingest(w, {
        locationId: loc.id,
        siteType: "google",
        rating: 5,
        text: "Lovely",
        externalReviewId: `e2e-${Date.now()}`,
      });
      // other subscriptions of this tenant (["*"]) get the event too: follow this one's delivery
      const mine = async () =>
        (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, sub.id))).find(
          (d) => d.status === "succeeded",
        );
      const deadline = Date.now() + 10_000;
      while (!(await mine()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const delivered = (await mine())!;
      expect(delivered).toMatchObject({ eventType: "review.created", attempts: 1, responseStatus: 200 });
      const call = site.calls.find((c) => c.headers.get("webhook-id") === delivered.messageId)!;
      expect(JSON.parse(call.body)).toMatchObject({
        type: "review.created",
        data: { reviewId: review.id, locationId: loc.id },
      });
      expect(await verifyStandardWebhook(sub.secret, call.headers, call.body)).toBe(true);
    } finally {
      setWebhookFetch();
    }
  });
});

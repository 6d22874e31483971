import { createExecutionContext, createMessageBatch, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts, domainEvents, sendRecords, solicitations } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import type { Env } from "../../src/env";
import { deliverSends } from "../../src/modules/solicitations/delivery";
import { sweepStalePending } from "../../src/modules/solicitations/stale";
import { forgetWhiteLabels } from "../../src/modules/white-label/resolve";
import { countingD1 } from "../helpers/d1-counter";
import { createWorld, db, type World } from "../helpers/seed";
import { standIn } from "../providers/messaging/stand-in";
import {
  approvedTemplate,
  newContact,
  newLocation,
  noQuietHours,
  outboxFor,
  pendingRow,
  runSends,
  solicitationRow,
} from "./helpers";

let w: World;
let loc: { id: string; name: string };
let locB: { id: string };

beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w);
  loc = await newLocation(w, "manager", { name: "Downtown" });
  await w.as("manager").put(`/v1/locations/${loc.id}/variables`, { variables: { promo: "10% off" } });
  locB = await newLocation(w, "tenantBAdmin");
  // tenant B sends email through SendGrid; the tests hand the consumer a local stand-in for its API
  const put = await w.as("tenantBAdmin").put("/v1/settings/email", {
    provider: "sendgrid",
    fromAddress: "hello@b.test",
    fromName: "B Co",
    credentials: { apiKey: "SG.tenant-b" },
  });
  expect(put.status).toBe(200);
});

const eventsOf = async (solicitationId: string) =>
  (await db().select().from(domainEvents)).filter((e) => e.data.solicitationId === solicitationId).map((e) => e.type);

describe("SENDS consumer", () => {
  it("renders the approved template with the contact, location, brand, variables and links, and sends it to the outbox", async () => {
    const t = await approvedTemplate(w, {
      channel: "email",
      subject: "Thanks {{firstName}}",
      bodyHtml:
        "<p>{{fullName}} at {{locationName}} ({{brandName}}): {{promo}} <a href='{{reviewLink}}'>review</a></p>",
      bodyText: "Hi {{firstName}} {{reviewLink}} {{feedbackLink}} {{unsubscribeLink}}",
    });
    const c = await newContact(w, { firstName: "Zoë" });
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id, templateId: t.id });
    const result = await runSends([id]);
    expect(result.explicitAcks).toHaveLength(1);
    const row = await solicitationRow(id);
    expect(row).toMatchObject({ status: "SENT", provider: "outbox", failureReason: null });
    expect(row!.sentAt).not.toBeNull();
    const [mail] = await outboxFor(id);
    const base = env.PUBLIC_BASE_URL;
    expect(mail!.subject).toBe("Thanks Zoë");
    expect(mail!.html).toContain("<p>Zoë Lee at Downtown (");
    expect(mail!.html).toContain("10% off");
    expect(mail!.html).toContain(`${base}/v1/r/${row!.shortLinkToken}?redirect=1`);
    expect(mail!.text).toContain(`${base}/f/${row!.shortLinkToken}`);
    const unsubscribe = /\/unsubscribe\/([A-Za-z0-9._-]+)/.exec(mail!.text!)![0];
    expect(mail!.headers).toEqual({
      "List-Unsubscribe": `<${base}${unsubscribe}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
    expect(row!.providerMessageId).toBe(mail!.id);
    expect(await eventsOf(id)).toContain("solicitation.sent");
    const contact = await db().select().from(contacts).where(eq(contacts.id, c.id)).get();
    expect(contact!.lastActivityAt! >= row!.sentAt!).toBe(true);
  });

  it("never sends twice: a redelivered message, or the same message twice in a batch, finds the send record", async () => {
    const c = await newContact(w);
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    await runSends([id, id]);
    await runSends([id]);
    expect(await outboxFor(id)).toHaveLength(1);
    expect(await db().select().from(sendRecords).where(eq(sendRecords.solicitationId, id))).toEqual([
      expect.objectContaining({ provider: "outbox", providerMessageId: (await outboxFor(id))[0]!.id }),
    ]);
  });

  it("writes a tenant's batch to the outbox in one call: each message its own row, linked to its solicitation", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 25; i++)
      ids.push(await pendingRow({ tenantId: w.tenantA.id, contactId: (await newContact(w)).id, locationId: loc.id }));
    const result = await runSends(ids);
    expect(result.explicitAcks).toHaveLength(25);
    for (const id of ids) {
      const row = await solicitationRow(id);
      const mail = await outboxFor(id);
      expect(row!.status).toBe("SENT");
      expect(mail).toHaveLength(1);
      expect(row!.providerMessageId).toBe(mail[0]!.id);
    }
  });

  it("costs the same D1 round trips for a batch from many tenants as from one: one settings read, one outbox write", async () => {
    const worlds = [w, await createWorld(), await createWorld()];
    const rowsOf = async (world: World, n: number) => {
      await noQuietHours(world);
      const l = await newLocation(world);
      const ids = [];
      for (let i = 0; i < n; i++)
        ids.push(
          await pendingRow({ tenantId: world.tenantA.id, contactId: (await newContact(world)).id, locationId: l.id }),
        );
      return ids.map((solicitationId) => ({ solicitationId, tenantId: world.tenantA.id }));
    };
    // messages carry their tenant (as every producer sends them); white labels measured uncached
    const send = async (messages: { solicitationId: string; tenantId: string }[]) => {
      forgetWhiteLabels();
      const { DB, roundTrips } = countingD1();
      const ctx = createExecutionContext();
      const batch = createMessageBatch(
        "sends",
        messages.map((body, i) => ({ id: `m-${i}-${body.solicitationId}`, timestamp: new Date(), attempts: 1, body })),
      );
      const counted = { ...env, DB, SHARD_0: DB } as Env;
      await deliverSends(batch, counted, shardDb(counted, 0), ctx);
      await waitOnExecutionContext(ctx);
      return roundTrips();
    };
    const oneTenant = await rowsOf(w, 2);
    const threeTenants = (await Promise.all(worlds.map((x) => rowsOf(x, 2)))).flat();
    expect(await send(threeTenants)).toBe(await send(oneTenant));
    for (const { solicitationId: id } of [...oneTenant, ...threeTenants]) {
      expect(await solicitationRow(id)).toMatchObject({ status: "SENT", provider: "outbox" });
      expect(await outboxFor(id)).toHaveLength(1);
    }
  });

  it("retries the whole batch when the batched write fails, freeing the claims so the retry sends once", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(await pendingRow({ tenantId: w.tenantA.id, contactId: (await newContact(w)).id, locationId: loc.id }));
    await env.DB.prepare(
      "create trigger outbox_down before insert on outbox_messages begin select raise(abort, 'outbox unavailable'); end",
    ).run();
    try {
      const failed = await runSends(ids);
      expect(failed.delays).toHaveLength(3);
      expect(failed.delays.every((d: number) => d > 0)).toBe(true);
      for (const id of ids) {
        expect(await solicitationRow(id)).toMatchObject({
          status: "PENDING",
          failureReason: expect.stringContaining("outbox unavailable"),
        });
        expect(await db().select().from(sendRecords).where(eq(sendRecords.solicitationId, id))).toEqual([]);
      }
    } finally {
      await env.DB.prepare("drop trigger outbox_down").run();
    }
    const retried = await runSends(ids, { attempts: 2 });
    expect(retried.explicitAcks).toHaveLength(3);
    for (const id of ids) {
      expect(await solicitationRow(id)).toMatchObject({ status: "SENT", failureReason: null });
      expect(await outboxFor(id)).toHaveLength(1);
    }
  });

  it("records a send whose result was lost (send record with a message id) without sending again", async () => {
    const c = await newContact(w);
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    await db().insert(sendRecords).values({
      solicitationId: id,
      provider: "outbox",
      providerMessageId: "outbox_earlier",
      createdAt: new Date().toISOString(),
    });
    await runSends([id]);
    expect(await solicitationRow(id)).toMatchObject({ status: "SENT", providerMessageId: "outbox_earlier" });
    expect(await outboxFor(id)).toEqual([]);
  });

  it("sends SMS with the opt-out text", async () => {
    const c = await newContact(w, { email: null, phone: "+14155550123", consent: ["sms"] });
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id, channel: "sms" });
    await runSends([id]);
    const [sms] = await outboxFor(id);
    expect(sms).toMatchObject({ channel: "sms", to: "+14155550123", headers: {} });
    expect(sms!.text).toMatch(/Reply STOP to opt out$/);
  });

  it("uses the campaign's binding when the solicitation names no template", async () => {
    const t = await approvedTemplate(w, {
      channel: "email",
      subject: "From the binding",
      bodyText: "Bound {{reviewLink}}",
    });
    const camp = await w.as("manager").post("/v1/campaigns", { name: "Bound", type: "one_time", channels: ["email"] });
    await w.as("manager").post(`/v1/campaigns/${camp.body.id}/templates`, { templateId: t.id, channel: "email" });
    const c = await newContact(w);
    const id = await pendingRow({
      tenantId: w.tenantA.id,
      contactId: c.id,
      locationId: loc.id,
      campaignId: camp.body.id,
    });
    await runSends([id]);
    expect((await outboxFor(id))[0]!.subject).toBe("From the binding");
  });

  it("re-checks the policy at send time: a contact suppressed meanwhile is BLOCKED, nothing sent", async () => {
    const c = await newContact(w);
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    await w.as("tenantUser").post(`/v1/contacts/${c.id}/suppress`, { reason: "unsubscribed" });
    await runSends([id]);
    expect(await solicitationRow(id)).toMatchObject({ status: "BLOCKED", blockedReason: "SUPPRESSED" });
    expect(await outboxFor(id)).toEqual([]);
    expect(await eventsOf(id)).toContain("solicitation.blocked");
  });

  it("retries a transient provider error with backoff, then sends on the next attempt", async () => {
    const c = await newContact(w, { as: "tenantBAdmin" });
    const id = await pendingRow({ tenantId: w.tenantB.id, contactId: c.id, locationId: locB.id });
    const down = standIn(() => new Response("busy", { status: 503 }));
    const first = await runSends([id], { fetch: down.fetch, attempts: 1 });
    expect(first.retryMessages).toHaveLength(1);
    expect(first.delays).toHaveLength(1);
    expect(first.delays[0]).toBeGreaterThanOrEqual(5);
    expect(first.delays[0]).toBeLessThanOrEqual(10);
    expect(await solicitationRow(id)).toMatchObject({
      status: "PENDING",
      failureReason: expect.stringContaining("sendgrid"),
    });
    expect(await db().select().from(sendRecords).where(eq(sendRecords.solicitationId, id))).toEqual([]);

    const up = standIn(() => new Response(null, { status: 202, headers: { "x-message-id": "sg-123" } }));
    const second = await runSends([id], { fetch: up.fetch, attempts: 2 });
    expect(second.explicitAcks).toHaveLength(1);
    expect(await solicitationRow(id)).toMatchObject({
      status: "SENT",
      provider: "sendgrid",
      providerMessageId: "sg-123",
      failureReason: null,
    });
    const call = up.last();
    expect(call.req.url).toBe("https://api.sendgrid.com/v3/mail/send");
    const payload = JSON.parse(call.body);
    expect(payload.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(payload.headers["List-Unsubscribe"]).toMatch(/^<http:\/\/localhost:8787\/unsubscribe\/.+>$/);
    expect(payload.custom_args).toMatchObject({ solicitation_id: id });
  });

  it("fails at once on a permanent provider error, and after the last attempt on a transient one", async () => {
    const c = await newContact(w, { as: "tenantBAdmin" });
    const permanent = await pendingRow({ tenantId: w.tenantB.id, contactId: c.id, locationId: locB.id });
    const refused = standIn(
      () =>
        new Response(
          JSON.stringify({ errors: [{ message: "The from address does not match a verified Sender Identity" }] }),
          { status: 403 },
        ),
    );
    const r1 = await runSends([permanent], { fetch: refused.fetch, attempts: 1 });
    expect(r1.retryMessages).toEqual([]);
    expect(await solicitationRow(permanent)).toMatchObject({
      status: "FAILED",
      failureReason: expect.stringContaining("HTTP 403"),
    });
    expect(await eventsOf(permanent)).toContain("solicitation.failed");
    // a redelivery of the failed one does not call the provider again
    await runSends([permanent], { fetch: refused.fetch, attempts: 2 });
    expect(refused.calls).toHaveLength(1);

    const c2 = await newContact(w, { as: "tenantBAdmin" });
    const exhausted = await pendingRow({ tenantId: w.tenantB.id, contactId: c2.id, locationId: locB.id });
    const down = standIn(() => new Response("busy", { status: 429 }));
    const r2 = await runSends([exhausted], { fetch: down.fetch, attempts: 5 });
    expect(r2.retryMessages).toEqual([]);
    expect(await solicitationRow(exhausted)).toMatchObject({
      status: "FAILED",
      failureReason: expect.stringContaining("after 5 attempts"),
    });
  });
});

describe("stale PENDING sweep", () => {
  it("requeues a PENDING solicitation that lost its queue message, and fails one stuck for a day", async () => {
    const c = await newContact(w);
    const now = new Date();
    const lost = await pendingRow({
      tenantId: w.tenantA.id,
      contactId: c.id,
      locationId: loc.id,
      createdAt: new Date(now.getTime() - 40 * 60_000).toISOString(),
    });
    const stuck = await pendingRow({
      tenantId: w.tenantA.id,
      contactId: c.id,
      locationId: loc.id,
      createdAt: new Date(now.getTime() - 25 * 3600_000).toISOString(),
    });
    const fresh = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    const result = await sweepStalePending(env, db(), now);
    expect(result.failed).toBeGreaterThanOrEqual(1);
    expect(result.requeued).toBeGreaterThanOrEqual(1);
    expect(await solicitationRow(stuck)).toMatchObject({
      status: "FAILED",
      failureReason: "not delivered within 24 hours",
    });
    expect((await solicitationRow(fresh))!.status).toBe("PENDING");
    // the requeued one is delivered by the queue
    const deadline = Date.now() + 8000;
    while ((await solicitationRow(lost))!.status === "PENDING" && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect((await solicitationRow(lost))!.status).toBe("SENT");
    expect(await db().select().from(solicitations).where(eq(solicitations.id, fresh))).toHaveLength(1);
  });
});

import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { deadLetters, domainEvents, outboxMessages, solicitations } from "../../src/db/schema";
import { runRetentionSweep } from "../../src/modules/contacts/retention";
import { createWorld, db, type World } from "../helpers/seed";
import {
  approvedTemplate,
  newContact,
  newLocation,
  noQuietHours,
  runSends,
  solicit,
  solicitationRow,
  waitForStatus,
} from "./helpers";

let w: World;
let loc: { id: string };

beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w);
  loc = await newLocation(w);
});

describe("conversion hook (reviews)", () => {
  it("a review naming the solicitation sets convertedAt once and emits solicitation.converted in the review's batch", async () => {
    const c = await newContact(w);
    const s = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" });
    const review = await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: loc.id,
      siteType: "first_party",
      rating: 5,
      text: "Great",
      solicitationId: s.body.id,
      publishedAt: "2026-03-01T10:00:00Z",
    });
    expect(review.status).toBe(201);
    expect((await solicitationRow(s.body.id))!.convertedAt).toBe("2026-03-01T10:00:00.000Z");
    const events = (
      await db().select().from(domainEvents).where(eq(domainEvents.type, "solicitation.converted"))
    ).filter((e) => e.data.solicitationId === s.body.id);
    expect(events).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ reviewId: review.body.id, contactId: c.id }) }),
    ]);
    const second = await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: loc.id,
      siteType: "first_party",
      rating: 4,
      solicitationId: s.body.id,
    });
    expect(second.status).toBe(201);
    expect((await solicitationRow(s.body.id))!.convertedAt).toBe("2026-03-01T10:00:00.000Z");
  });

  it("an unknown or another tenant's solicitation is a 400 and stores no review", async () => {
    const locB = await newLocation(w, "tenantBAdmin");
    const cB = await newContact(w, { as: "tenantBAdmin" });
    const sB = await solicit(
      w,
      { locationId: locB.id, contactId: cB.id, channel: "email" },
      crypto.randomUUID(),
      "tenantBAdmin",
    );
    const res = await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: loc.id,
      siteType: "first_party",
      rating: 5,
      solicitationId: sB.body.id,
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "solicitationId", message: "Unknown solicitation" }]);
    expect((await solicitationRow(sB.body.id))!.convertedAt).toBeNull();
  });
});

describe("experiment outcomes", () => {
  it("counts sent, delivered, clicked and converted per variant from the solicitations", async () => {
    const tA = await approvedTemplate(w, { channel: "email", subject: "A", bodyText: "A {{reviewLink}}" });
    const tB = await approvedTemplate(w, { channel: "email", subject: "B", bodyText: "B {{reviewLink}}" });
    const camp = (await w.as("manager").post("/v1/campaigns", { name: "Exp", type: "one_time", channels: ["email"] }))
      .body;
    const exp = await w.as("manager").post("/v1/experiments", {
      name: "Subject test",
      hypothesis: "B wins",
      campaignId: camp.id,
      variants: [
        { name: "A", trafficPercent: 50, templateId: tA.id },
        { name: "B", trafficPercent: 50, templateId: tB.id },
      ],
    });
    expect(exp.status).toBe(201);
    expect((await w.as("manager").post(`/v1/experiments/${exp.body.id}/start`)).status).toBe(200);
    const people = await Promise.all(Array.from({ length: 8 }, () => newContact(w)));
    const send = await w.as("manager").post(`/v1/campaigns/${camp.id}/send`, {
      locationId: loc.id,
      channel: "email",
      contactIds: people.map((p) => p.id),
    });
    expect(send.body.queued).toBe(8);
    const rows = await db().select().from(solicitations).where(eq(solicitations.campaignId, camp.id));
    for (const r of rows) await waitForStatus(r.id, "SENT");
    // each went out with its variant's template
    for (const r of rows) {
      const mail = await db().select().from(outboxMessages).where(eq(outboxMessages.solicitationId, r.id)).get();
      expect(mail!.subject).toBe(r.variantId === exp.body.variants[0].id ? "A" : "B");
    }
    const clicked = rows[0]!;
    await db()
      .update(solicitations)
      .set({ clickedAt: new Date().toISOString(), status: "DELIVERED", deliveredAt: new Date().toISOString() })
      .where(eq(solicitations.id, clicked.id));
    await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: loc.id,
      siteType: "first_party",
      rating: 5,
      solicitationId: clicked.id,
    });
    const results = await w.as("viewer").get(`/v1/experiments/${exp.body.id}/results`);
    expect(results.status).toBe(200);
    const byId = new Map(
      results.body.variants.map((v: { variantId?: string; id?: string }) => [v.variantId ?? v.id, v]),
    );
    const count = (variantId: string) => rows.filter((r) => r.variantId === variantId).length;
    for (const v of exp.body.variants) {
      const got = byId.get(v.id) as Record<string, number>;
      const isClicked = clicked.variantId === v.id ? 1 : 0;
      expect(got).toMatchObject({ sent: count(v.id), delivered: isClicked, clicked: isClicked, converted: isClicked });
    }
  });
});

describe("personal data (export, erasure, retention)", () => {
  it("exports a contact's solicitations, and erasure removes the stored message copies", async () => {
    const c = await newContact(w);
    const s = await solicit(w, {
      locationId: loc.id,
      contactId: c.id,
      channel: "email",
      metadata: { orderRef: "A-1" },
    });
    await waitForStatus(s.body.id, "SENT");
    const exported = await w.as("manager").get(`/v1/contacts/${c.id}/export`);
    expect(exported.body.records.solicitations).toEqual([
      expect.objectContaining({ id: s.body.id, metadata: { orderRef: "A-1" } }),
    ]);
    expect((await w.as("tenantAdmin").delete(`/v1/contacts/${c.id}`)).status).toBe(200);
    expect(await db().select().from(outboxMessages).where(eq(outboxMessages.solicitationId, s.body.id))).toEqual([]);
    expect(await solicitationRow(s.body.id)).toMatchObject({ metadata: {}, status: "SENT" });
  });

  it("retention deletes solicitations older than the tenant's retentionDays", async () => {
    const c = await newContact(w);
    const s = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" });
    const fresh = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" });
    await db()
      .update(solicitations)
      .set({ createdAt: new Date(Date.now() - 800 * 24 * 3600_000).toISOString() })
      .where(eq(solicitations.id, s.body.id));
    const result = await runRetentionSweep(env, db(), new Date());
    expect(result.expired).toBeGreaterThanOrEqual(1);
    expect(await solicitationRow(s.body.id)).toBeUndefined();
    expect(await solicitationRow(fresh.body.id)).toBeDefined();
  });
});

describe("admin surfaces", () => {
  it("GET /admin/tenants/{id} shows the tenant's email sender", async () => {
    expect((await w.as("platformAdmin").get(`/admin/tenants/${w.tenantA.id}`)).body.emailConfig).toBeNull();
    await w.as("tenantAdmin").put("/v1/settings/email", {
      provider: "sendgrid",
      fromAddress: "hi@shop.test",
      fromName: "Shop",
      fallbackToPlatform: true,
    });
    const res = await w.as("platformAdmin").get(`/admin/tenants/${w.tenantA.id}`);
    expect(res.body.emailConfig).toEqual({
      fromAddress: "hi@shop.test",
      fromName: "Shop",
      senderDomain: "shop.test",
      dkimStatus: "pending",
      dmarcStatus: "pending",
    });
    await w.as("tenantAdmin").put("/v1/settings/email", {
      provider: "sendgrid",
      fromAddress: "hi@shop.test",
      fromName: "Shop",
      fallbackToPlatform: false,
      credentials: { apiKey: null },
    });
  });

  it("GET /admin/dead-letters lists and counts exhausted sends (platform_admin only)", async () => {
    await db()
      .insert(deadLetters)
      .values({
        id: "dl1",
        queue: "sends",
        messageId: "m-dead",
        body: { solicitationId: "s-dead" },
        attempts: 6,
        createdAt: new Date().toISOString(),
      });
    const res = await w.as("platformAdmin").get("/admin/dead-letters?queue=sends");
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.data[0]).toMatchObject({ queue: "sends", body: { solicitationId: "s-dead" }, attempts: 6 });
    expect((await w.as("tenantAdmin").get("/admin/dead-letters")).status).toBe(403);
  });
});

describe("redelivery of a consumed message", () => {
  it("acks without sending", async () => {
    const c = await newContact(w);
    const s = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" });
    await waitForStatus(s.body.id, "SENT");
    const again = await runSends([s.body.id]);
    expect(again.explicitAcks).toHaveLength(1);
    expect(await db().select().from(outboxMessages).where(eq(outboxMessages.solicitationId, s.body.id))).toHaveLength(
      1,
    );
  });
});

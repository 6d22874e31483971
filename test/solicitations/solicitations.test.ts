import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents, idempotencyKeys, outboxMessages, solicitations } from "../../src/db/schema";
import { readLinkToken } from "../../src/modules/links/tokens";
import { purgeExpiredIdempotencyKeys } from "../../src/modules/solicitations/idempotency";
import { createWorld, db, seedTenant, type World } from "../helpers/seed";
import {
  newContact,
  newLocation,
  noQuietHours,
  outboxFor,
  runSends,
  solicit,
  solicitationRow,
  uuid,
  waitForStatus,
} from "./helpers";

let w: World;
let loc: { id: string };

beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w);
  loc = await newLocation(w);
});

describe("POST /v1/solicitations", () => {
  it("creates a PENDING solicitation with a signed short link, an event and an audit row, and the queue delivers it", async () => {
    const c = await newContact(w);
    const key = uuid();
    const res = await solicit(
      w,
      { locationId: loc.id, contactId: c.id, channel: "email", metadata: { visit: "v-1" } },
      key,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      locationId: loc.id,
      contactId: c.id,
      channel: "email",
      status: "PENDING",
      blockedReason: null,
      campaignId: null,
      templateId: null,
      providerMessageId: null,
      sentAt: null,
      idempotencyKey: key,
      metadata: { visit: "v-1" },
    });
    expect(await readLinkToken(env.JWT_SECRET!, res.body.shortLinkToken)).toEqual({
      solicitationId: res.body.id,
      tenantId: w.tenantA.id,
      locationId: loc.id,
      destination: "auto",
    });
    const events = await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id));
    expect(events.filter((e) => e.data.solicitationId === res.body.id).map((e) => e.type)).toContain(
      "solicitation.created",
    );
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, res.body.id));
    expect(audit).toEqual([
      expect.objectContaining({
        action: "solicitation.created",
        resourceType: "solicitation",
        actorId: w.users.tenantUser.id,
      }),
    ]);

    const sent = await waitForStatus(res.body.id, "SENT");
    expect(sent).toMatchObject({ provider: "outbox", providerMessageId: expect.stringMatching(/^outbox_/) });
    const [mail] = await outboxFor(res.body.id);
    expect(mail).toMatchObject({ to: c.email, channel: "email", tenantId: w.tenantA.id });
    expect(mail!.html).toContain(`/v1/r/${res.body.shortLinkToken}?redirect=1`);
    expect(mail!.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    const get = await w.as("viewer").get(`/v1/solicitations/${res.body.id}`);
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({ id: res.body.id, status: "SENT", provider: "outbox", sentAt: expect.any(String) });
  });

  it("keeps its own destinationUrl as a custom destination", async () => {
    const c = await newContact(w);
    const res = await solicit(w, {
      locationId: loc.id,
      contactId: c.id,
      channel: "email",
      destinationUrl: "https://example.com/review",
    });
    expect(res.body.destinationUrl).toBe("https://example.com/review");
    expect((await readLinkToken(env.JWT_SECRET!, res.body.shortLinkToken))!.destination).toBe("custom");
  });

  it("validates the body and the references (400 with issues), and names another tenant's rows as unknown", async () => {
    const c = await newContact(w);
    const bad = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "fax" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["channel"]);
    const locB = await newLocation(w, "tenantBAdmin");
    const cB = await newContact(w, { as: "tenantBAdmin" });
    const foreignContact = await solicit(w, { locationId: loc.id, contactId: cB.id, channel: "email" });
    expect(foreignContact.status).toBe(400);
    expect(foreignContact.body).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { issues: [{ path: "contactId", message: "Unknown contact" }] },
    });
    const foreignLocation = await solicit(w, { locationId: locB.id, contactId: c.id, channel: "email" });
    expect(foreignLocation.body.details.issues).toEqual([{ path: "locationId", message: "Unknown location" }]);
    const rows = await db().select().from(solicitations).where(eq(solicitations.contactId, cB.id));
    expect(rows).toEqual([]);
  });

  it("needs an Idempotency-Key (400 IDEMPOTENCY_KEY_REQUIRED)", async () => {
    const c = await newContact(w);
    const res = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" }, null);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("IDEMPOTENCY_KEY_REQUIRED");
  });

  it("is tenant_user and up: a viewer gets 403", async () => {
    const c = await newContact(w);
    const res = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" }, uuid(), "viewer");
    expect(res.status).toBe(403);
    expect(await db().select().from(solicitations).where(eq(solicitations.contactId, c.id))).toEqual([]);
  });

  it("GET answers 404 for another tenant's solicitation and for unknown ids", async () => {
    const c = await newContact(w);
    const mine = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" });
    expect((await w.as("tenantBAdmin").get(`/v1/solicitations/${mine.body.id}`)).status).toBe(404);
    expect((await w.as("viewer").get("/v1/solicitations/nope")).status).toBe(404);
  });
});

describe("Idempotency-Key", () => {
  it("replays the stored response for the same key and body, creating nothing more", async () => {
    const c = await newContact(w);
    const key = uuid();
    const body = { locationId: loc.id, contactId: c.id, channel: "email", metadata: { a: 1, b: [1, 2] } };
    const first = await solicit(w, body, key);
    // same content, other key order: the same request
    const again = await solicit(
      w,
      { metadata: { b: [1, 2], a: 1 }, channel: "email", contactId: c.id, locationId: loc.id },
      key,
    );
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await db().select().from(solicitations).where(eq(solicitations.contactId, c.id))).toHaveLength(1);
  });

  it("refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED)", async () => {
    const c = await newContact(w);
    const key = uuid();
    await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" }, key);
    const reused = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "sms" }, key);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await db().select().from(solicitations).where(eq(solicitations.contactId, c.id))).toHaveLength(1);
  });

  it("keys are per tenant: tenant B may use tenant A's key", async () => {
    const key = uuid();
    const c = await newContact(w);
    const a = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" }, key);
    const locB = await newLocation(w, "tenantBAdmin");
    const cB = await newContact(w, { as: "tenantBAdmin" });
    const b = await solicit(w, { locationId: locB.id, contactId: cB.id, channel: "email" }, key, "tenantBAdmin");
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.tenantId).toBe(w.tenantB.id);
  });

  it("frees the key when the request fails, so it can be retried", async () => {
    const c = await newContact(w);
    const key = uuid();
    expect((await solicit(w, { locationId: "nope", contactId: c.id, channel: "email" }, key)).status).toBe(400);
    expect((await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" }, key)).status).toBe(201);
  });

  it("20 concurrent duplicates create exactly one solicitation and one outbox message", async () => {
    const c = await newContact(w);
    const key = uuid();
    const body = { locationId: loc.id, contactId: c.id, channel: "email" };
    const results = await Promise.all(Array.from({ length: 20 }, () => solicit(w, body, key)));
    // duplicates in flight wait for the first answer: 20 identical answers
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    const rows = await db().select().from(solicitations).where(eq(solicitations.contactId, c.id));
    expect(rows).toHaveLength(1);
    await waitForStatus(rows[0]!.id, "SENT");
    // a redelivered queue message changes nothing
    await runSends([rows[0]!.id, rows[0]!.id]);
    expect(await db().select().from(outboxMessages).where(eq(outboxMessages.solicitationId, rows[0]!.id))).toHaveLength(
      1,
    );
    // after the first finished, a late duplicate is a replay
    const late = await solicit(w, body, key);
    expect(late.status).toBe(201);
    expect(late.body.id).toBe(rows[0]!.id);
  });

  it("records expire after 24 hours and are purged by the sweep", async () => {
    const c = await newContact(w);
    const key = uuid();
    await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" }, key);
    const row = await db()
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, w.tenantA.id), eq(idempotencyKeys.key, key)))
      .get();
    expect(Date.parse(row!.expiresAt) - Date.parse(row!.createdAt)).toBe(24 * 3600_000);
    const mine = () => db().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
    await purgeExpiredIdempotencyKeys(db(), new Date(Date.parse(row!.expiresAt) - 1));
    expect(await mine()).toHaveLength(1);
    expect(await purgeExpiredIdempotencyKeys(db(), new Date(Date.parse(row!.expiresAt)))).toBeGreaterThanOrEqual(1);
    expect(await mine()).toEqual([]);
  });
});

describe("the policy through the route", () => {
  it("SUPPRESSED, MISSING_ADDRESS, NO_CONSENT: stored BLOCKED, answered 201, never queued", async () => {
    const suppressed = await newContact(w);
    await w.as("tenantUser").post(`/v1/contacts/${suppressed.id}/suppress`, { reason: "asked" });
    const phoneOnly = await newContact(w, { email: null, phone: "+14155550111", consent: ["sms"] });
    const noConsent = await newContact(w, { consent: [] });
    const cases = [
      [suppressed.id, "email", "SUPPRESSED"],
      [phoneOnly.id, "email", "MISSING_ADDRESS"],
      [noConsent.id, "email", "NO_CONSENT"],
      [phoneOnly.id, "whatsapp", "NO_CONSENT"],
    ] as const;
    for (const [contactId, channel, reason] of cases) {
      const res = await solicit(w, { locationId: loc.id, contactId, channel });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: "BLOCKED", blockedReason: reason });
      const ev = await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id));
      expect(ev.find((e) => e.data.solicitationId === res.body.id)).toMatchObject({
        type: "solicitation.blocked",
        data: { blockedReason: reason },
      });
    }
    const sms = await solicit(w, { locationId: loc.id, contactId: phoneOnly.id, channel: "sms" });
    expect(sms.body).toMatchObject({ status: "PENDING", blockedReason: null });
  });

  it("consent granted lets the send through; revoked blocks it again", async () => {
    const c = await newContact(w, { consent: [] });
    expect((await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" })).body.blockedReason).toBe(
      "NO_CONSENT",
    );
    await w.as("tenantUser").post(`/v1/contacts/${c.id}/consent`, { channel: "email", source: "checkout" });
    expect((await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" })).body.status).toBe("PENDING");
    await w.as("tenantUser").delete(`/v1/contacts/${c.id}/consent/email`);
    expect((await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" })).body.blockedReason).toBe(
      "NO_CONSENT",
    );
  });

  it("FREQUENCY_CAP_DAILY at the 4th send of the day (default cap 3); blocked sends do not count", async () => {
    const c = await newContact(w);
    const noConsentYet = await newContact(w, { consent: [] });
    expect((await solicit(w, { locationId: loc.id, contactId: noConsentYet.id, channel: "email" })).body.status).toBe(
      "BLOCKED",
    );
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" })).body.blockedReason);
    expect(statuses).toEqual([null, null, null, "FREQUENCY_CAP_DAILY"]);
  });

  it("FREQUENCY_CAP_WEEKLY with five sends in the last 7 days, none in the last 24 hours", async () => {
    const c = await newContact(w);
    const first = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" });
    const base = (await solicitationRow(first.body.id))!;
    const days = [1.5, 2, 3, 6.9];
    // one row per statement: four rows of every column would pass D1's 100 bound values
    for (const [i, d] of days.entries()) {
      await db()
        .insert(solicitations)
        .values({
          ...base,
          id: `${base.id}-old${i}`,
          shortLinkToken: `${base.shortLinkToken}-${i}`,
          status: "SENT" as const,
          createdAt: new Date(Date.now() - d * 24 * 3600_000).toISOString(),
        });
    }
    await db()
      .update(solicitations)
      .set({ createdAt: new Date(Date.now() - 25 * 3600_000).toISOString() })
      .where(eq(solicitations.id, base.id));
    const res = await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" });
    expect(res.body.blockedReason).toBe("FREQUENCY_CAP_WEEKLY");
  });

  it("QUIET_HOURS in the contact's zone, else the location's", async () => {
    const now = new Date();
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    // a two-hour quiet window around the current UTC time
    await noQuietHours(w, "tenantAdmin", {
      quietHoursStart: hhmm(new Date(now.getTime() - 3600_000)),
      quietHoursEnd: hhmm(new Date(now.getTime() + 3600_000)),
    });
    try {
      const tokyo = await newLocation(w, "manager", { timezone: "Asia/Tokyo" });
      const utcContact = await newContact(w, { timezone: "UTC" });
      const zoneless = await newContact(w);
      const inUtc = await solicit(w, { locationId: loc.id, contactId: zoneless.id, channel: "email" });
      expect(inUtc.body.blockedReason).toBe("QUIET_HOURS");
      const atTokyo = await solicit(w, { locationId: tokyo.id, contactId: zoneless.id, channel: "email" });
      expect(atTokyo.body.blockedReason).toBeNull();
      const utcAtTokyo = await solicit(w, { locationId: tokyo.id, contactId: utcContact.id, channel: "email" });
      expect(utcAtTokyo.body.blockedReason).toBe("QUIET_HOURS");
    } finally {
      await noQuietHours(w);
    }
  });

  it("TENANT_PAUSED: a paused tenant sends nothing (platform admin still reaches it)", async () => {
    const paused = await seedTenant({ isActive: false });
    const admin = w.as("platformAdmin", paused.id);
    const l = await admin.post("/v1/locations", { name: "Paused loc" });
    const c = await admin.post("/v1/contacts", { email: "p@example.com" });
    await admin.post(`/v1/contacts/${c.body.id}/consent`, { channel: "email", source: "test" });
    const res = await admin.post(
      "/v1/solicitations",
      { locationId: l.body.id, contactId: c.body.id, channel: "email" },
      { "idempotency-key": uuid() },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "BLOCKED", blockedReason: "TENANT_PAUSED" });
  });
});

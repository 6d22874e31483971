import { and, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, contacts, domainEvents, outboxMessages, solicitations } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { newContact, newLocation, noQuietHours } from "../solicitations/helpers";
import { seedContacts } from "../solicitations/seed-contacts";

let w: World;
let loc: { id: string };
let campaign: { id: string };
let people: Awaited<ReturnType<typeof seedContacts>>;

beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w);
  loc = await newLocation(w);
  campaign = (
    await w.as("manager").post("/v1/campaigns", { name: "Spring", type: "one_time", channels: ["email", "sms"] })
  ).body;
  // 300 contacts: every 5th suppressed (60), every 4th of the rest without consent
  people = await seedContacts({
    tenantId: w.tenantA.id,
    count: 300,
    suppressed: (i) => i % 5 === 0,
    consented: (i) => i % 4 !== 1,
  });
});

const campaignRows = (id: string) => db().select().from(solicitations).where(eq(solicitations.campaignId, id));

async function waitUntilNonePending(campaignId: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = (await campaignRows(campaignId)).filter((r) => r.status === "PENDING").length;
    if (pending === 0) return;
    if (Date.now() > deadline) throw new Error(`${pending} still PENDING`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("POST /v1/campaigns/{id}/send", () => {
  it("sends to every non-suppressed contact with an email, with exact counts, and the queue delivers with unsubscribe headers", async () => {
    const eligible = people.filter((p) => !p.suppressed);
    const expectedQueued = eligible.filter((p) => p.consented).length;
    const res = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: eligible.length,
      queued: expectedQueued,
      blocked: eligible.length - expectedQueued,
      failed: 0,
      errors: [],
    });
    expect(res.body.total).toBe(240);

    const rows = await campaignRows(campaign.id);
    expect(rows).toHaveLength(240);
    expect(rows.filter((r) => r.status === "BLOCKED").every((r) => r.blockedReason === "NO_CONSENT")).toBe(true);
    const suppressedIds = people.filter((p) => p.suppressed).map((p) => p.id);
    expect(rows.some((r) => suppressedIds.includes(r.contactId))).toBe(false);
    expect(rows.every((r) => r.idempotencyKey?.startsWith("send_"))).toBe(true);

    await waitUntilNonePending(campaign.id);
    const sent = (await campaignRows(campaign.id)).filter((r) => r.status === "SENT");
    expect(sent).toHaveLength(expectedQueued);
    const mail = await db()
      .select()
      .from(outboxMessages)
      .where(
        inArray(
          outboxMessages.solicitationId,
          sent.slice(0, 90).map((r) => r.id),
        ),
      );
    expect(mail).toHaveLength(90);
    for (const m of mail) {
      expect(m.headers["List-Unsubscribe"]).toMatch(/^<http:\/\/localhost:8787\/unsubscribe\/[^>]+>$/);
      expect(m.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    }
    const [event] = (await db().select().from(domainEvents).where(eq(domainEvents.type, "campaign.sent"))).filter(
      (e) => e.data.campaignId === campaign.id,
    );
    expect(event!.data).toMatchObject({
      total: 240,
      queued: expectedQueued,
      blocked: 240 - expectedQueued,
      failed: 0,
      channel: "email",
    });
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "campaign.sent"), eq(auditEvents.resourceId, campaign.id)));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorId).toBe(w.users.manager.id);
  }, 30_000);

  it("with contactIds: suppressed ones are BLOCKED, other tenants' and unknown ids fail with a reason", async () => {
    const suppressed = people.find((p) => p.suppressed)!;
    const fine = people.find((p) => !p.suppressed && p.consented)!;
    const foreign = await newContact(w, { as: "tenantBAdmin" });
    const res = await w.as("manager").post(`/v1/campaigns/${campaign.id}/send`, {
      locationId: loc.id,
      channel: "email",
      contactIds: [fine.id, suppressed.id, foreign.id, "nope", fine.id],
    });
    expect(res.body).toEqual({
      total: 4,
      queued: 1,
      blocked: 1,
      failed: 2,
      errors: [
        { contactId: foreign.id, reason: "Unknown contact" },
        { contactId: "nope", reason: "Unknown contact" },
      ],
    });
    expect(await db().select().from(solicitations).where(eq(solicitations.contactId, foreign.id))).toEqual([]);
  });

  it("SMS goes to contacts with a phone; limit caps the total", async () => {
    const withPhone = await newContact(w, { phone: "+14155550199", consent: ["sms"] });
    const res = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "sms", limit: 10 });
    expect(res.body).toMatchObject({ total: 1, queued: 1, blocked: 0, failed: 0 });
    const rows = (await campaignRows(campaign.id)).filter((r) => r.channel === "sms");
    expect(rows.map((r) => r.contactId)).toEqual([withPhone.id]);
    const capped = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email", limit: 7 });
    expect(capped.body.total).toBe(7);
  });

  it("validates: the channel must be the campaign's, the location and template this tenant's, limit 1..5000", async () => {
    const wa = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "whatsapp" });
    expect(wa.status).toBe(400);
    expect(wa.body.details.issues[0].path).toBe("channel");
    const locB = await newLocation(w, "tenantBAdmin");
    const foreignLoc = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send`, { locationId: locB.id, channel: "email" });
    expect(foreignLoc.body.details.issues).toEqual([{ path: "locationId", message: "Unknown location" }]);
    const limit = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email", limit: 5001 });
    expect(limit.status).toBe(400);
    expect(limit.body.details.issues[0].path).toBe("limit");
    const tpl = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email", templateId: "nope" });
    expect(tpl.body.details.issues).toEqual([{ path: "templateId", message: "Unknown template" }]);
  });

  it("an inactive campaign is 409; another tenant's campaign is 404; viewer and tenant_user are 403", async () => {
    const off = (await w.as("manager").post("/v1/campaigns", { name: "Off", type: "one_time", channels: ["email"] }))
      .body;
    await w.as("manager").post(`/v1/campaigns/${off.id}/deactivate`);
    expect(
      (await w.as("manager").post(`/v1/campaigns/${off.id}/send`, { locationId: loc.id, channel: "email" })).status,
    ).toBe(409);
    const campB = (
      await w.as("tenantBAdmin").post("/v1/campaigns", { name: "B", type: "one_time", channels: ["email"] })
    ).body;
    expect(
      (await w.as("manager").post(`/v1/campaigns/${campB.id}/send`, { locationId: loc.id, channel: "email" })).status,
    ).toBe(404);
    expect((await w.as("manager").get(`/v1/campaigns/${campB.id}/solicitations`)).status).toBe(404);
    expect(
      (await w.as("viewer").post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email" })).status,
    ).toBe(403);
    expect(
      (await w.as("tenantUser").post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email" }))
        .status,
    ).toBe(403);
  });
});

describe("GET /v1/campaigns/{id}/solicitations", () => {
  it("lists newest first with the contact embedded, default 200, max 500", async () => {
    const all = await campaignRows(campaign.id);
    const res = await w.as("viewer").get(`/v1/campaigns/${campaign.id}/solicitations`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(all.length);
    expect(res.body.data).toHaveLength(200);
    const first = res.body.data[0];
    const contact = await db().select().from(contacts).where(eq(contacts.id, first.contactId)).get();
    expect(first.contact).toEqual({
      id: contact!.id,
      email: contact!.email,
      firstName: contact!.firstName,
      lastName: contact!.lastName,
      phone: contact!.phone,
    });
    const created = res.body.data.map((s: { createdAt: string }) => s.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect((await w.as("viewer").get(`/v1/campaigns/${campaign.id}/solicitations?limit=500`)).body.data).toHaveLength(
      Math.min(500, all.length),
    );
    expect((await w.as("viewer").get(`/v1/campaigns/${campaign.id}/solicitations?limit=501`)).status).toBe(400);
  });
});

describe("POST /v1/campaigns/{id}/send-bulk", () => {
  const form = (csv: string, fields: Record<string, string> = {}) => {
    const f = new FormData();
    f.set("contacts", new File([csv], "send.csv", { type: "text/csv" }));
    for (const [k, v] of Object.entries(fields)) f.set(k, v);
    return f;
  };

  it("upserts each row as a contact and sends it, with 1-based row errors and exact counts", async () => {
    const known = people.filter((p) => !p.suppressed && p.consented).slice(50, 52);
    const other = await newLocation(w);
    const csv = [
      "email,phone,first_name,lastName,locationId,channel",
      `${known[0]!.email},,Kay,Known,,`, // 1: queued
      `${known[1]!.email},,,,${other.id},`, // 2: queued, at the row's location
      "new.person@example.com,,New,Person,,", // 3: a new contact without consent: skipped
      "not-an-email,,,,,", // 4: failed
      ",,Nobody,,,", // 5: failed (no email or phone)
      `x@example.com,,,,nope,`, // 6: failed (unknown location)
      `y@example.com,,,,,fax`, // 7: failed (channel)
      `z@example.com,,,,,whatsapp`, // 8: failed (not a campaign channel)
    ].join("\n");
    const res = await w
      .as("manager")
      .post(`/v1/campaigns/${campaign.id}/send-bulk`, form(csv, { locationId: loc.id, channel: "email" }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 8,
      queued: 2,
      skipped: 1,
      failed: 5,
      errors: [
        { row: 3, reason: "Blocked by policy: NO_CONSENT" },
        { row: 4, reason: "email: Invalid email address" },
        { row: 5, reason: expect.stringContaining("email or phone") },
        { row: 6, reason: "locationId: Unknown location" },
        { row: 7, reason: "channel: must be one of email, sms, whatsapp" },
        { row: 8, reason: "channel: whatsapp is not one of the campaign's channels" },
      ],
    });
    const kay = await db().select().from(contacts).where(eq(contacts.id, known[0]!.id)).get();
    expect(kay).toMatchObject({ firstName: "Kay", lastName: "Known" });
    const created = await db().select().from(contacts).where(eq(contacts.email, "new.person@example.com")).get();
    expect(created).toMatchObject({ firstName: "New", lastName: "Person", tenantId: w.tenantA.id });
    const atOther = await db()
      .select()
      .from(solicitations)
      .where(and(eq(solicitations.contactId, known[1]!.id), eq(solicitations.locationId, other.id)));
    expect(atOther).toHaveLength(1);
    // rows that fail are not upserted
    expect(await db().select().from(contacts).where(eq(contacts.email, "x@example.com"))).toEqual([]);
  });

  it("needs the contacts file (400), refuses over 5,000 rows (413), and is manager-only", async () => {
    const f = new FormData();
    f.set("channel", "email");
    const missing = await w.as("manager").post(`/v1/campaigns/${campaign.id}/send-bulk`, f);
    expect(missing.status).toBe(400);
    expect(missing.body.details.issues[0].path).toBe("contacts");
    const big = ["email", ...Array.from({ length: 5001 }, (_, i) => `big${i}@example.com`)].join("\n");
    expect(
      (
        await w
          .as("manager")
          .post(`/v1/campaigns/${campaign.id}/send-bulk`, form(big, { locationId: loc.id, channel: "email" }))
      ).status,
    ).toBe(413);
    expect(
      (
        await w
          .as("tenantUser")
          .post(`/v1/campaigns/${campaign.id}/send-bulk`, form("email\na@b.co", { locationId: loc.id }))
      ).status,
    ).toBe(403);
  });
});

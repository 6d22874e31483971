import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { consentRecords, contacts, sequenceEnrollments } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { auditOf, createContact, createLocation, eventsOf, SECRET, seedSolicitation } from "./helpers";

let w: World;
let locationId: string;

beforeAll(async () => {
  w = await createWorld();
  await w
    .as("tenantAdmin")
    .patch(`/v1/brands/${w.tenantA.brandId}`, { name: "Acme Dental", logoUrl: "https://cdn.acme.test/logo.png" });
  locationId = (await createLocation(w.as("manager"))).id;
});

const consentOf = (contactId: string, channel: "email" | "sms" = "email") =>
  db()
    .select()
    .from(consentRecords)
    .where(and(eq(consentRecords.contactId, contactId), eq(consentRecords.channel, channel)))
    .orderBy(asc(consentRecords.seq));

async function recipient(fields: Record<string, unknown> = {}, channel: "email" | "sms" = "email") {
  const contact = await createContact(w.as("manager"), {
    email: `ann.lee.${newId().slice(0, 6)}@example.test`,
    ...fields,
  });
  const s = await seedSolicitation({ tenantId: w.tenantA.id, locationId, contactId: contact.id, channel });
  return { contact, ...s };
}

const ONE_CLICK = { "content-type": "application/x-www-form-urlencoded" };

describe("GET /unsubscribe/{token}", () => {
  it("serves a branded HTML confirmation page by default", async () => {
    const { unsubscribeToken } = await recipient({ email: "ann.lee@example.test" });
    const res = await request("GET", `/unsubscribe/${unsubscribeToken}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.text).toContain("Unsubscribe from emails from Acme Dental?");
    expect(res.text).toContain("an***@example.test");
    expect(res.text).not.toContain("ann.lee@example.test");
    expect(res.text).toContain('<img src="https://cdn.acme.test/logo.png" alt="Acme Dental logo"/>');
    expect(res.text).toMatch(/<form method="post">.*<button type="submit" id="confirm">Unsubscribe<\/button>/s);
    expect(res.text).not.toMatch(/<script|<link /);
  });

  it("answers JSON when asked, and masks a phone for an SMS link", async () => {
    const { unsubscribeToken } = await recipient({ phone: "+14155550123" }, "sms");
    const res = await request("GET", `/unsubscribe/${unsubscribeToken}`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      channel: "sms",
      address: "********0123",
      brand: { name: "Acme Dental", logoUrl: "https://cdn.acme.test/logo.png" },
      locale: null,
      subscribed: true,
      unsubscribedAt: null,
      whiteLabel: {
        name: "Reputation Operations",
        logoUrl: null,
        primaryColor: null,
        accentColor: null,
        supportEmail: null,
        source: "default",
      },
    });
  });

  it("404s forged and foreign-purpose tokens, and an erased contact's link", async () => {
    const { contact, id } = await recipient();
    const forged = await mintUnsubscribeToken("another-secret-0123456789-0123456789", {
      tenantId: w.tenantA.id,
      contactId: contact.id,
      channel: "email",
      solicitationId: id,
    });
    const link = await mintLinkToken(SECRET, {
      solicitationId: id,
      tenantId: w.tenantA.id,
      locationId,
      destination: "google",
    });
    const otherTenant = await mintUnsubscribeToken(SECRET, {
      tenantId: w.tenantB.id,
      contactId: contact.id,
      channel: "email",
      solicitationId: id,
    });
    for (const bad of [forged, link, otherTenant, "garbage"]) {
      for (const method of ["GET", "POST", "DELETE"]) {
        const res = await request(method, `/unsubscribe/${bad}`, { headers: { accept: "application/json" } });
        expect(res.status, `${method} ${bad}`).toBe(404);
        expect(res.body).toMatchObject({ code: "NOT_FOUND" });
      }
    }
    const erased = await recipient();
    await db().update(contacts).set({ anonymizedAt: nowIso(), email: null }).where(eq(contacts.id, erased.contact.id));
    expect((await request("GET", `/unsubscribe/${erased.unsubscribeToken}`)).status).toBe(404);
    expect(await consentOf(contact.id)).toEqual([]);
  });
});

describe("POST /unsubscribe/{token} (RFC 8058 one-click)", () => {
  it("revokes the channel's consent with no cookies or auth, audits with a system actor, emits contact.suppressed", async () => {
    const { contact, id, unsubscribeToken } = await recipient();
    await w.as("manager").post(`/v1/contacts/${contact.id}/consent`, { channel: "email", source: "signup form" });
    await w.as("manager").post(`/v1/contacts/${contact.id}/consent`, { channel: "sms", source: "signup form" });

    const res = await request("POST", `/unsubscribe/${unsubscribeToken}`, {
      body: "List-Unsubscribe=One-Click",
      headers: { ...ONE_CLICK, "user-agent": "MailProvider/1.0", "cf-connecting-ip": "203.0.113.9" },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain("You are unsubscribed");

    const email = await consentOf(contact.id);
    expect(email.map((r) => [r.status, r.source])).toEqual([
      ["granted", "signup form"],
      ["revoked", "unsubscribe"],
    ]);
    expect(email[1]).toMatchObject({ ipAddress: "203.0.113.9", userAgent: "MailProvider/1.0" });
    expect((await consentOf(contact.id, "sms")).map((r) => r.status)).toEqual(["granted"]);
    // the channel is stopped; the contact (all channels) is not suppressed
    const row = await db().select().from(contacts).where(eq(contacts.id, contact.id)).get();
    expect(row!.isSuppressed).toBe(false);

    const audit = await auditOf(contact.id, "contact.unsubscribed");
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      tenantId: w.tenantA.id,
      actorType: "system",
      actorId: null,
      ipAddress: "203.0.113.9",
      userAgent: "MailProvider/1.0",
      previousState: { channel: "email", consent: "granted" },
      nextState: { channel: "email", consent: "revoked", consentRecordId: email[1]!.id },
      metadata: { job: "unsubscribe", solicitationId: id },
    });
    const events = (await eventsOf("contact.suppressed")).filter((e) => e.data.contactId === contact.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      contactId: contact.id,
      channel: "email",
      reason: "unsubscribe",
      solicitationId: id,
    });

    // a repeated POST (providers retry) changes nothing
    const again = await request("POST", `/unsubscribe/${unsubscribeToken}`, {
      body: "List-Unsubscribe=One-Click",
      headers: { ...ONE_CLICK, accept: "application/json" },
    });
    expect(again.body).toMatchObject({ subscribed: false, unsubscribedAt: email[1]!.createdAt });
    expect(await consentOf(contact.id)).toHaveLength(2);
    expect(await auditOf(contact.id, "contact.unsubscribed")).toHaveLength(1);
  });

  it("accepts a multipart one-click body and an empty POST", async () => {
    const a = await recipient();
    const form = new FormData();
    form.set("List-Unsubscribe", "One-Click");
    const multipart = await request("POST", `/unsubscribe/${a.unsubscribeToken}`, {
      body: form,
      headers: { accept: "application/json" },
    });
    expect(multipart.status).toBe(200);
    expect(multipart.body).toMatchObject({ channel: "email", subscribed: false });
    const b = await recipient();
    expect((await request("POST", `/unsubscribe/${b.unsubscribeToken}`)).status).toBe(200);
    expect((await consentOf(b.contact.id)).map((r) => r.source)).toEqual(["unsubscribe"]);
  });

  it("stops the contact's drip enrollments in the same change", async () => {
    const { contact, id, unsubscribeToken } = await recipient();
    const campaign = await w.as("manager").post("/v1/campaigns", { name: "Drip", type: "drip", channels: ["email"] });
    const now = nowIso();
    await db().insert(sequenceEnrollments).values({
      id: newId(),
      tenantId: w.tenantA.id,
      campaignId: campaign.body.id,
      contactId: contact.id,
      locationId,
      originSolicitationId: id,
      status: "active",
      lastStepIndex: 0,
      nextStepIndex: 1,
      dueAt: now,
      startedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    await request("POST", `/unsubscribe/${unsubscribeToken}`, {
      body: "List-Unsubscribe=One-Click",
      headers: ONE_CLICK,
    });
    const enrollment = await db()
      .select()
      .from(sequenceEnrollments)
      .where(eq(sequenceEnrollments.originSolicitationId, id))
      .get();
    expect(enrollment).toMatchObject({
      status: "stopped",
      stopReason: "unsubscribed",
      dueAt: null,
      nextStepIndex: null,
    });
  });
});

describe("DELETE /unsubscribe/{token} (resubscribe)", () => {
  it("grants back what the unsubscribe revoked, audited; the page's form does the same with _method=DELETE", async () => {
    const { contact, unsubscribeToken } = await recipient();
    await request("POST", `/unsubscribe/${unsubscribeToken}`, {
      body: "List-Unsubscribe=One-Click",
      headers: ONE_CLICK,
    });
    const page = await request("GET", `/unsubscribe/${unsubscribeToken}`);
    expect(page.text).toContain("You are unsubscribed");
    expect(page.text).toContain('name="_method" value="DELETE"');

    const res = await request("DELETE", `/unsubscribe/${unsubscribeToken}`, {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscribed: true, unsubscribedAt: null });
    expect((await consentOf(contact.id)).map((r) => [r.status, r.source])).toEqual([
      ["revoked", "unsubscribe"],
      ["granted", "resubscribe"],
    ]);
    const audit = await auditOf(contact.id, "contact.resubscribed");
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actorType: "system",
      previousState: { consent: "revoked" },
      nextState: { channel: "email", consent: "granted" },
    });

    // already subscribed: nothing changes
    expect((await request("DELETE", `/unsubscribe/${unsubscribeToken}`)).status).toBe(200);
    expect(await consentOf(contact.id)).toHaveLength(2);

    // unsubscribe again, then the page's resubscribe form (POST _method=DELETE)
    await request("POST", `/unsubscribe/${unsubscribeToken}`, {
      body: "List-Unsubscribe=One-Click",
      headers: ONE_CLICK,
    });
    const viaForm = await request("POST", `/unsubscribe/${unsubscribeToken}`, {
      body: "_method=DELETE",
      headers: ONE_CLICK,
    });
    expect(viaForm.text).toContain("You are subscribed again");
    expect((await consentOf(contact.id)).map((r) => r.status)).toEqual(["revoked", "granted", "revoked", "granted"]);
  });

  it("does not undo an opt-out made another way (409)", async () => {
    const { contact, unsubscribeToken } = await recipient();
    await w.as("manager").delete(`/v1/contacts/${contact.id}/consent/email`);
    const res = await request("DELETE", `/unsubscribe/${unsubscribeToken}`, {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "CONFLICT" });
    expect((await consentOf(contact.id)).map((r) => r.source)).toEqual(["api"]);
    // and POST on an already revoked channel records nothing more
    await request("POST", `/unsubscribe/${unsubscribeToken}`);
    expect((await consentOf(contact.id)).map((r) => r.source)).toEqual(["api"]);
  });
});

import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, consentRecords, contacts, domainEvents, sendRecords, solicitations } from "../../src/db/schema";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { b64, hex, hmac } from "../providers/messaging/stand-in";
import { newContact, newLocation, pendingRow, solicitationRow } from "./helpers";

const BASE = "http://localhost:8787";
const TWILIO_TOKEN = "tw-auth-token";
const META_SECRET = "meta-app-secret";
const SID = `AC${"a".repeat(32)}`;
let w: World;
let loc: { id: string };
let sgKeys: CryptoKeyPair;

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
  sgKeys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const publicKey = b64((await crypto.subtle.exportKey("spki", sgKeys.publicKey)) as ArrayBuffer);
  const puts = [
    await w.as("tenantAdmin").put("/v1/settings/sms", {
      provider: "twilio",
      fromNumber: "+15550001111",
      options: { accountSid: SID },
      credentials: { authToken: TWILIO_TOKEN },
    }),
    await w.as("tenantAdmin").put("/v1/settings/email", {
      provider: "sendgrid",
      fromAddress: "hi@a.test",
      fromName: "A",
      credentials: { apiKey: "SG.x", webhookVerificationKey: publicKey },
    }),
    await w.as("tenantAdmin").put("/v1/settings/whatsapp", {
      provider: "meta",
      channelRegistrationId: "106540352242922",
      credentials: { accessToken: "EAAG", appSecret: META_SECRET, verifyToken: "vt-1" },
    }),
  ];
  for (const p of puts) expect(p.status).toBe(200);
});

/** A solicitation already handed to a provider (written directly: these tests never call a provider). */
async function sent(
  provider: string,
  providerMessageId: string,
  o: { channel?: "email" | "sms" | "whatsapp"; phone?: string } = {},
) {
  const c = await newContact(w, {
    phone: o.phone,
    consent: ["email", "sms", "whatsapp"].filter((ch) => ch === "email" || o.phone),
  });
  const id = await pendingRow({
    tenantId: w.tenantA.id,
    contactId: c.id,
    locationId: loc.id,
    channel: o.channel ?? "email",
  });
  await db()
    .update(solicitations)
    .set({ status: "SENT", provider, providerMessageId, sentAt: new Date().toISOString() })
    .where(eq(solicitations.id, id));
  return { id, contactId: c.id };
}

const eventsOf = async (key: string, value: string) =>
  (await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantA.id)))
    .filter((e) => e.data[key] === value)
    .map((e) => e.type);

async function twilio(params: Record<string, string>, token = TWILIO_TOKEN) {
  const url = `${BASE}/webhooks/providers/twilio?tenant=${w.tenantA.id}`;
  const signed =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join("");
  const signature = b64(await hmac("SHA-1", token, signed));
  return request("POST", `/webhooks/providers/twilio?tenant=${w.tenantA.id}`, {
    body: new URLSearchParams(params).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
  });
}

describe("Twilio", () => {
  it("moves SENT -> DELIVERED once; duplicates and out-of-order reports change nothing", async () => {
    const s = await sent("twilio", "SM100", { channel: "sms", phone: "+14155550100" });
    const res = await twilio({ MessageSid: "SM100", MessageStatus: "delivered", To: "+14155550100" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: 1, applied: 1, consentRevoked: 0 });
    const row = await solicitationRow(s.id);
    expect(row).toMatchObject({ status: "DELIVERED" });
    expect(row!.deliveredAt).not.toBeNull();
    expect((await twilio({ MessageSid: "SM100", MessageStatus: "delivered", To: "+14155550100" })).body.applied).toBe(
      0,
    );
    expect(
      (await twilio({ MessageSid: "SM100", MessageStatus: "failed", To: "+14155550100", ErrorCode: "30008" })).body
        .applied,
    ).toBe(0);
    expect((await solicitationRow(s.id))!.status).toBe("DELIVERED");
    expect(await eventsOf("solicitationId", s.id)).toEqual(["solicitation.delivered"]);
  });

  it("401 for a bad or missing signature, and nothing changes", async () => {
    const s = await sent("twilio", "SM200", { channel: "sms", phone: "+14155550200" });
    const forged = await twilio({ MessageSid: "SM200", MessageStatus: "delivered" }, "wrong-token");
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ code: "UNAUTHENTICATED" });
    const unsigned = await request("POST", `/webhooks/providers/twilio?tenant=${w.tenantA.id}`, {
      body: "MessageSid=SM200&MessageStatus=delivered",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(unsigned.status).toBe(401);
    expect((await solicitationRow(s.id))!.status).toBe("SENT");
  });

  it("a bounce (30005) moves to BOUNCED and suppresses the contact, audited, with contact.suppressed", async () => {
    const s = await sent("twilio", "SM300", { channel: "sms", phone: "+14155550300" });
    const res = await twilio({
      MessageSid: "SM300",
      MessageStatus: "undelivered",
      ErrorCode: "30005",
      To: "+14155550300",
    });
    expect(res.body.applied).toBe(1);
    expect(await solicitationRow(s.id)).toMatchObject({
      status: "BOUNCED",
      failureReason: expect.stringContaining("30005"),
    });
    const c = await db().select().from(contacts).where(eq(contacts.id, s.contactId)).get();
    expect(c).toMatchObject({ isSuppressed: true, suppressionReason: "sms_bounced" });
    expect(await eventsOf("contactId", s.contactId)).toContain("contact.suppressed");
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, s.contactId), eq(auditEvents.action, "contact.suppressed")));
    expect(audit).toEqual([expect.objectContaining({ actorType: "system", tenantId: w.tenantA.id })]);
  });

  it("an inbound STOP revokes SMS consent (source inbound_stop), audited, once", async () => {
    const c = await newContact(w, { phone: "+14155550400", consent: ["sms"] });
    const stop = { MessageSid: "SM401", SmsStatus: "received", From: "+14155550400", To: "+15550001111", Body: "Stop" };
    const res = await twilio(stop);
    expect(res.body).toEqual({ received: 1, applied: 0, consentRevoked: 1 });
    const consent = await w.as("viewer").get(`/v1/contacts/${c.id}/consent`);
    expect(consent.body.at(-1)).toMatchObject({ channel: "sms", status: "revoked", source: "inbound_stop" });
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "consent.revoked"))
      .orderBy(desc(auditEvents.occurredAt));
    expect(audit.find((a) => (a.nextState as { contactId?: string })?.contactId === c.id)).toMatchObject({
      actorType: "system",
    });
    expect((await twilio({ ...stop, MessageSid: "SM402" })).body.consentRevoked).toBe(0);
    expect((await twilio({ ...stop, MessageSid: "SM403", Body: "please stop texting me" })).body.consentRevoked).toBe(
      0,
    );
    // and the policy now blocks SMS to this contact
    const next = await w
      .as("tenantUser")
      .post(
        "/v1/solicitations",
        { locationId: loc.id, contactId: c.id, channel: "sms" },
        { "idempotency-key": crypto.randomUUID() },
      );
    expect(next.body.blockedReason).toBe("NO_CONSENT");
  });
});

/** raw r||s (WebCrypto) as the DER SEQUENCE SendGrid sends */
function rawToDer(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b.subarray(i);
    return v[0]! & 0x80 ? [0x02, v.length + 1, 0, ...v] : [0x02, v.length, ...v];
  };
  const body = [...int(raw.subarray(0, 32)), ...int(raw.subarray(32))];
  return new Uint8Array([0x30, body.length, ...body]);
}

async function sendgrid(events: unknown[], key = sgKeys.privateKey) {
  const body = JSON.stringify(events);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const raw = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(timestamp + body)),
  );
  return request("POST", `/webhooks/providers/sendgrid?tenant=${w.tenantA.id}`, {
    body,
    headers: {
      "content-type": "application/json",
      "x-twilio-email-event-webhook-signature": btoa(String.fromCharCode(...rawToDer(raw))),
      "x-twilio-email-event-webhook-timestamp": timestamp,
    },
  });
}

describe("SendGrid", () => {
  it("applies a signed batch: delivered, then a spam complaint suppresses the contact", async () => {
    const a = await sent("sendgrid", "sg-a");
    const b = await sent("sendgrid", "sg-b");
    const ts = Math.floor(Date.now() / 1000);
    const res = await sendgrid([
      { event: "delivered", sg_message_id: "sg-a.filter1", email: "x@example.com", timestamp: ts },
      { event: "delivered", sg_message_id: "sg-b.filter1", email: "y@example.com", timestamp: ts },
      { event: "spamreport", sg_message_id: "sg-b.filter1", email: "y@example.com", timestamp: ts + 1 },
      { event: "delivered", sg_message_id: "unknown.filter", email: "z@example.com", timestamp: ts },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: 4, applied: 2 });
    expect((await solicitationRow(a.id))!.status).toBe("DELIVERED");
    expect((await solicitationRow(b.id))!.status).toBe("DELIVERED");
    expect(await db().select().from(contacts).where(eq(contacts.id, b.contactId)).get()).toMatchObject({
      isSuppressed: true,
      suppressionReason: "email_complaint",
    });
    expect(await db().select().from(contacts).where(eq(contacts.id, a.contactId)).get()).toMatchObject({
      isSuppressed: false,
    });
  });

  it("a bounce after delivery moves to BOUNCED; a forged signature is 401 and changes nothing", async () => {
    const s = await sent("sendgrid", "sg-c");
    const ts = Math.floor(Date.now() / 1000);
    const other = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const forged = await sendgrid(
      [{ event: "bounce", type: "bounce", sg_message_id: "sg-c.filter0", email: "x@example.com", timestamp: ts }],
      other.privateKey,
    );
    expect(forged.status).toBe(401);
    expect((await solicitationRow(s.id))!.status).toBe("SENT");
    expect(
      (await sendgrid([{ event: "delivered", sg_message_id: "sg-c.filter0", email: "x@example.com", timestamp: ts }]))
        .body.applied,
    ).toBe(1);
    const res = await sendgrid([
      {
        event: "bounce",
        type: "bounce",
        reason: "550 unknown user",
        sg_message_id: "sg-c.filter0",
        email: "x@example.com",
        timestamp: ts + 5,
      },
    ]);
    expect(res.body.applied).toBe(1);
    expect(await solicitationRow(s.id)).toMatchObject({ status: "BOUNCED", failureReason: "550 unknown user" });
    expect(await eventsOf("solicitationId", s.id)).toEqual(["solicitation.delivered", "solicitation.bounced"]);
  });

  it("a report carrying our id resolves a send whose answer was lost: PENDING with a claim, or SENT with an unknown outcome (docs/sending.md, Crash truth)", async () => {
    const claimed = async (o: { unknown: boolean }) => {
      const c = await newContact(w);
      const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
      const at = new Date(Date.now() - 60_000).toISOString();
      await db()
        .insert(sendRecords)
        .values({ solicitationId: id, provider: "sendgrid", providerMessageId: null, createdAt: at });
      if (o.unknown)
        await db()
          .update(solicitations)
          .set({ status: "SENT", provider: "sendgrid", sentAt: at, deliveryOutcome: "unknown" })
          .where(eq(solicitations.id, id));
      return id;
    };
    const lost = await claimed({ unknown: false });
    const unknown = await claimed({ unknown: true });
    const never = await pendingRow({ tenantId: w.tenantA.id, contactId: (await newContact(w)).id, locationId: loc.id });
    const ts = Math.floor(Date.now() / 1000);
    const res = await sendgrid([
      {
        event: "delivered",
        sg_message_id: "sg-lost.filter1",
        solicitation_id: lost,
        email: "x@example.com",
        timestamp: ts,
      },
      {
        event: "bounce",
        type: "bounce",
        reason: "550 no such user",
        sg_message_id: "sg-unknown.filter1",
        solicitation_id: unknown,
        email: "y@example.com",
        timestamp: ts,
      },
      // never handed to a provider (no claim): a report naming it is not believed
      {
        event: "delivered",
        sg_message_id: "sg-never.filter1",
        solicitation_id: never,
        email: "z@example.com",
        timestamp: ts,
      },
    ]);
    expect(res.body).toMatchObject({ received: 3, applied: 2 });
    expect(await solicitationRow(lost)).toMatchObject({
      status: "DELIVERED",
      provider: "sendgrid",
      providerMessageId: "sg-lost",
      deliveryOutcome: null,
    });
    expect((await solicitationRow(lost))!.sentAt).not.toBeNull();
    expect(await solicitationRow(unknown)).toMatchObject({
      status: "BOUNCED",
      providerMessageId: "sg-unknown",
      deliveryOutcome: null,
      failureReason: "550 no such user",
    });
    expect((await solicitationRow(never))!.status).toBe("PENDING");
    expect((await eventsOf("solicitationId", lost)).sort()).toEqual(["solicitation.delivered", "solicitation.sent"]);
    expect(await eventsOf("solicitationId", unknown)).toEqual(["solicitation.bounced"]);
    expect(
      (await db().select().from(sendRecords).where(eq(sendRecords.solicitationId, lost)).get())!.providerMessageId,
    ).toBe("sg-lost");
    // the same report again changes nothing
    expect(
      (
        await sendgrid([
          {
            event: "delivered",
            sg_message_id: "sg-lost.filter1",
            solicitation_id: lost,
            email: "x@example.com",
            timestamp: ts,
          },
        ])
      ).body.applied,
    ).toBe(0);
  });

  it("never touches another tenant's solicitations", async () => {
    const locB = await newLocation(w, "tenantBAdmin");
    const cB = await newContact(w, { as: "tenantBAdmin" });
    const id = await pendingRow({ tenantId: w.tenantB.id, contactId: cB.id, locationId: locB.id });
    await db()
      .update(solicitations)
      .set({ status: "SENT", provider: "sendgrid", providerMessageId: "sg-b-tenant" })
      .where(eq(solicitations.id, id));
    const res = await sendgrid([
      { event: "delivered", sg_message_id: "sg-b-tenant.filter0", email: "x@example.com", timestamp: 1 },
    ]);
    expect(res.body.applied).toBe(0);
    expect((await solicitationRow(id))!.status).toBe("SENT");
  });
});

describe("Meta WhatsApp", () => {
  const payload = (value: Record<string, unknown>) =>
    JSON.stringify({
      object: "whatsapp_business_account",
      entry: [{ id: "WABA", changes: [{ field: "messages", value: { messaging_product: "whatsapp", ...value } }] }],
    });
  const meta = async (body: string, secret = META_SECRET) =>
    request("POST", `/webhooks/providers/meta?tenant=${w.tenantA.id}`, {
      body,
      headers: {
        "content-type": "application/json",
        "x-hub-signature-256": `sha256=${hex(await hmac("SHA-256", secret, body))}`,
      },
    });

  it("answers the verification challenge with the verify token, 401 otherwise", async () => {
    const ok = await request(
      "GET",
      `/webhooks/providers/meta?tenant=${w.tenantA.id}&hub.mode=subscribe&hub.verify_token=vt-1&hub.challenge=12345`,
    );
    expect(ok.status).toBe(200);
    expect(ok.text).toBe("12345");
    expect(
      (
        await request(
          "GET",
          `/webhooks/providers/meta?tenant=${w.tenantA.id}&hub.mode=subscribe&hub.verify_token=no&hub.challenge=1`,
        )
      ).status,
    ).toBe(401);
  });

  it("applies statuses and an inbound STOP revokes WhatsApp consent; a bad signature changes nothing", async () => {
    const s = await sent("meta", "wamid.9", { channel: "whatsapp", phone: "+14155550900" });
    const body = payload({
      statuses: [
        {
          id: "wamid.9",
          status: "delivered",
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: "14155550900",
        },
      ],
      messages: [
        { from: "14155550900", id: "wamid.in9", timestamp: "1772366403", type: "text", text: { body: "STOP" } },
      ],
    });
    expect((await meta(body, "wrong")).status).toBe(401);
    expect((await solicitationRow(s.id))!.status).toBe("SENT");
    const res = await meta(body);
    expect(res.body).toEqual({ received: 2, applied: 1, consentRevoked: 1 });
    expect((await solicitationRow(s.id))!.status).toBe("DELIVERED");
    const latest = await db()
      .select()
      .from(consentRecords)
      .where(and(eq(consentRecords.contactId, s.contactId), eq(consentRecords.channel, "whatsapp")))
      .orderBy(desc(consentRecords.seq))
      .get();
    expect(latest).toMatchObject({ status: "revoked", source: "inbound_stop" });
  });
});

describe("ACS and unknown providers", () => {
  it("answers the Event Grid validation handshake only with the shared secret", async () => {
    await w.as("tenantAdmin").put("/v1/settings/email", {
      provider: "acs",
      fromAddress: "hi@a.test",
      fromName: "A",
      options: { endpoint: "https://res.communication.azure.com" },
      credentials: { accessKey: btoa("k".repeat(32)), webhookSecret: "acs-secret" },
    });
    const handshake = JSON.stringify([
      { id: "1", eventType: "Microsoft.EventGrid.SubscriptionValidationEvent", data: { validationCode: "code-1" } },
    ]);
    const ok = await request("POST", `/webhooks/providers/acs?tenant=${w.tenantA.id}&secret=acs-secret`, {
      body: handshake,
      headers: { "content-type": "application/json" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ validationResponse: "code-1" });
    const bad = await request("POST", `/webhooks/providers/acs?tenant=${w.tenantA.id}&secret=nope`, {
      body: handshake,
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(401);
    const unknown = await request("POST", "/webhooks/providers/pigeon", { body: "{}" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("NOT_FOUND");
  });
});

import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { solicitations } from "../../../src/db/schema";
import { fallBackToSms } from "../../../src/modules/solicitations/sms-fallback";
import { request } from "../../helpers/http";
import { pollUntil } from "../../helpers/poll";
import { createWorld, db, type World } from "../../helpers/seed";
import {
  newContact,
  newLocation,
  noQuietHours,
  pendingRow,
  runSends,
  solicitationRow,
} from "../../solicitations/helpers";
import { metaCloudStandIn, signedMeta, twilioWhatsAppStandIn } from "./whatsapp-standin";

// WhatsApp's rules that a retry cannot fix (docs/messaging.md, "Providers' rules"), through the real
// consumer, webhook route and template store, against stand-ins that speak them.
const META_SECRET = "meta-app-secret-rules";
const TOKEN = "EAAG-rules";
const TWILIO_TOKEN = "tw-rules-token";
const SID = `AC${"b".repeat(32)}`;
let w: World;
let loc: { id: string };
let usContact: { id: string };
let ukContact: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
  const put = await w.as("tenantAdmin").put("/v1/settings/whatsapp", {
    provider: "meta",
    channelRegistrationId: "106540352242922",
    credentials: { accessToken: TOKEN, appSecret: META_SECRET, verifyToken: "vt" },
  });
  expect(put.status).toBe(200);
  // the fallback SMS goes through the policy: no quiet hours by the clock, caps above this file's sends
  await noQuietHours(w, "tenantAdmin", { frequencyCapDaily: 50, frequencyCapWeekly: 100 });
  usContact = await newContact(w, { phone: "+14155550901", consent: ["whatsapp", "sms"] });
  ukContact = await newContact(w, { phone: "+447911123456", consent: ["whatsapp"] });
});

const whatsapp = (contactId: string, template: string) =>
  pendingRow({
    tenantId: w.tenantA.id,
    contactId,
    locationId: loc.id,
    channel: "whatsapp",
    metadata: { whatsappTemplate: { name: template, language: "en_US", params: ["firstName"] } },
  });

const postMeta = (tenantId: string, m: { body: string; signature: string }) =>
  request("POST", `/webhooks/providers/meta?tenant=${tenantId}`, {
    body: m.body,
    headers: { "content-type": "application/json", "x-hub-signature-256": m.signature },
  });

const statusUpdate = (name: string, event: string, o: { time?: number; category?: string; reason?: string } = {}) =>
  signedMeta(
    META_SECRET,
    {
      event,
      message_template_id: 278077987957091,
      message_template_name: name,
      message_template_language: "en_US",
      reason: o.reason ?? "NONE",
      message_template_category: o.category ?? "UTILITY",
    },
    "message_template_status_update",
    o.time,
  );

describe("Meta Cloud API", () => {
  it("a MARKETING template to a US number is accepted, then fails by webhook as whatsapp_marketing_us_blocked (131049), not retried", async () => {
    const api = metaCloudStandIn({
      accessToken: TOKEN,
      templates: { promo_offer: { category: "MARKETING", status: "APPROVED" } },
    });
    const id = await whatsapp(usContact.id, "promo_offer");
    expect((await runSends([id], { fetch: api.fetch })).delays).toEqual([]);
    expect((await solicitationRow(id))!.status).toBe("SENT");
    const res = await postMeta(w.tenantA.id, await api.statusWebhook(META_SECRET));
    expect(res.body).toMatchObject({ received: 1, applied: 1 });
    const row = (await solicitationRow(id))!;
    expect(row.status).toBe("FAILED");
    expect(row.failureReason).toMatch(
      /^whatsapp_marketing_us_blocked: Meta does not deliver WhatsApp marketing templates to US \(\+1\) numbers.*\(Meta error 131049\)$/,
    );
  });

  it("outside the US the same 131049 is the per-user marketing limit", async () => {
    const api = metaCloudStandIn({
      accessToken: TOKEN,
      templates: { promo_offer: { category: "MARKETING", status: "APPROVED" } },
      overMarketingLimit: ["447911123456"],
    });
    const id = await whatsapp(ukContact.id, "promo_offer");
    await runSends([id], { fetch: api.fetch });
    await postMeta(w.tenantA.id, await api.statusWebhook(META_SECRET));
    expect((await solicitationRow(id))!.failureReason).toMatch(
      /^whatsapp_marketing_limit: Meta's per-user marketing template limit.*\(Meta error 131049\)$/,
    );
  });

  it("a template Meta paused is refused at once (132015): FAILED, not retried", async () => {
    const api = metaCloudStandIn({
      accessToken: TOKEN,
      templates: { paused_one: { category: "UTILITY", status: "PAUSED" } },
    });
    const id = await whatsapp(ukContact.id, "paused_one");
    const run = await runSends([id], { fetch: api.fetch });
    expect(run.delays).toEqual([]);
    const row = (await solicitationRow(id))!;
    expect(row.status).toBe("FAILED");
    expect(row.failureReason).toContain(
      "whatsapp_template_not_sendable: the WhatsApp template is paused, disabled or rejected by Meta",
    );
    expect(row.failureReason).toContain("Meta error 132015");
  });
});

describe("template webhooks stop and resume sends", () => {
  it("PAUSED stops sends before any call; a redelivery or an older event changes nothing; APPROVED resumes", async () => {
    const api = metaCloudStandIn({
      accessToken: TOKEN,
      templates: { visit_thanks: { category: "UTILITY", status: "APPROVED" } },
    });
    const t0 = Math.floor(Date.now() / 1000) - 600;
    const paused = await statusUpdate("visit_thanks", "PAUSED", { time: t0 });
    expect((await postMeta(w.tenantA.id, { ...paused, signature: `sha256=${"0".repeat(64)}` })).status).toBe(401);
    expect((await postMeta(w.tenantA.id, paused)).body).toEqual({
      received: 0,
      applied: 0,
      consentRevoked: 0,
      templatesUpdated: 1,
    });
    expect((await postMeta(w.tenantA.id, paused)).body.templatesUpdated).toBe(0);
    // an APPROVED from before the pause, delivered late, does not un-pause it
    expect(
      (await postMeta(w.tenantA.id, await statusUpdate("visit_thanks", "APPROVED", { time: t0 - 60 }))).body
        .templatesUpdated,
    ).toBe(0);

    const list = await w.as("viewer").get("/v1/settings/whatsapp/templates");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        provider: "meta",
        name: "visit_thanks",
        language: "en_us",
        providerTemplateId: "278077987957091",
        status: "PAUSED",
        category: "UTILITY",
        sendable: false,
      }),
    ]);
    expect((await w.as("tenantBAdmin", w.tenantB.id).get("/v1/settings/whatsapp/templates")).body.data).toEqual([]);

    const id = await whatsapp(ukContact.id, "visit_thanks");
    expect((await runSends([id], { fetch: api.fetch })).delays).toEqual([]);
    expect(api.calls).toHaveLength(0);
    const row = (await solicitationRow(id))!;
    expect(row.status).toBe("FAILED");
    expect(row.failureReason).toBe(
      "meta: whatsapp_template_not_sendable: the WhatsApp template is paused, disabled or rejected by Meta; not retried until it is approved again (template visit_thanks (en_us) is PAUSED)",
    );

    expect(
      (await postMeta(w.tenantA.id, await statusUpdate("visit_thanks", "APPROVED", { time: t0 + 60 }))).body
        .templatesUpdated,
    ).toBe(1);
    const again = await whatsapp(ukContact.id, "visit_thanks");
    await runSends([again], { fetch: api.fetch });
    expect((await solicitationRow(again))!.status).toBe("SENT");
    expect(api.calls).toHaveLength(1);
  });

  it("template_category_update: an announced change applies at its time; a completed change to MARKETING stops sends to US numbers only", async () => {
    const api = metaCloudStandIn({
      accessToken: TOKEN,
      templates: { appt_reminder: { category: "UTILITY", status: "APPROVED" } },
    });
    const now = Math.floor(Date.now() / 1000);
    const announced = await signedMeta(
      META_SECRET,
      {
        message_template_id: 111,
        message_template_name: "appt_reminder",
        message_template_language: "en_US",
        correct_category: "MARKETING",
        new_category: "UTILITY",
        category_update_timestamp: now + 86_400,
      },
      "template_category_update",
      now - 30,
    );
    expect((await postMeta(w.tenantA.id, announced)).body.templatesUpdated).toBe(1);
    const list = (await w.as("viewer").get("/v1/settings/whatsapp/templates")).body.data.find(
      (t: { name: string }) => t.name === "appt_reminder",
    );
    expect(list).toMatchObject({
      category: "UTILITY",
      pendingCategory: "MARKETING",
      pendingCategoryAt: new Date((now + 86_400) * 1000).toISOString(),
      sendable: true,
    });
    const before = await whatsapp(usContact.id, "appt_reminder");
    await runSends([before], { fetch: api.fetch });
    expect((await solicitationRow(before))!.status).toBe("SENT");

    const done = await signedMeta(
      META_SECRET,
      {
        message_template_id: 111,
        message_template_name: "appt_reminder",
        message_template_language: "en_US",
        previous_category: "UTILITY",
        new_category: "MARKETING",
      },
      "template_category_update",
      now,
    );
    expect((await postMeta(w.tenantA.id, done)).body.templatesUpdated).toBe(1);
    const calls = api.calls.length;
    const us = await whatsapp(usContact.id, "appt_reminder");
    const uk = await whatsapp(ukContact.id, "appt_reminder");
    await runSends([us, uk], { fetch: api.fetch });
    expect((await solicitationRow(us))!).toMatchObject({
      status: "FAILED",
      failureReason: expect.stringMatching(
        /^meta: whatsapp_marketing_us_blocked: .*\(template appt_reminder is categorised MARKETING\)$/,
      ),
    });
    expect((await solicitationRow(uk))!.status).toBe("SENT");
    expect(api.calls.length).toBe(calls + 1);
  });
});

describe("Twilio WhatsApp", () => {
  it("status callback 63049 to a US number fails as whatsapp_marketing_us_blocked", async () => {
    const put = await w.as("tenantBAdmin", w.tenantB.id).put("/v1/settings/whatsapp", {
      provider: "twilio",
      channelRegistrationId: "+15550002222",
      options: { accountSid: SID },
      credentials: { authToken: TWILIO_TOKEN },
    });
    expect(put.status).toBe(200);
    const locB = await newLocation(w, "tenantBAdmin");
    const c = await newContact(w, { phone: "+14155550902", consent: ["whatsapp"], as: "tenantBAdmin" });
    const api = twilioWhatsAppStandIn({ marketingContentSids: [`HX${"1".repeat(32)}`] });
    const id = await pendingRow({
      tenantId: w.tenantB.id,
      contactId: c.id,
      locationId: locB.id,
      channel: "whatsapp",
      metadata: { whatsappTemplate: { name: `HX${"1".repeat(32)}`, language: "en" } },
    });
    await runSends([id], { fetch: api.fetch });
    expect((await solicitationRow(id))!.status).toBe("SENT");
    const path = `/webhooks/providers/twilio?tenant=${w.tenantB.id}`;
    const cb = await api.nextCallback(`http://localhost:8787${path}`, TWILIO_TOKEN);
    const res = await request("POST", path, {
      body: cb.body,
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": cb.signature },
    });
    expect(res.body).toMatchObject({ applied: 1 });
    expect((await solicitationRow(id))!).toMatchObject({
      status: "FAILED",
      failureReason: expect.stringMatching(/^whatsapp_marketing_us_blocked: .*\(Twilio error 63049\)$/),
    });
  });
});

describe("per-campaign SMS fallback (off by default)", () => {
  const fallbackOf = (id: string) =>
    db()
      .select()
      .from(solicitations)
      .where(and(eq(solicitations.tenantId, w.tenantA.id), eq(solicitations.idempotencyKey, `sms-fallback:${id}`)))
      .get();
  const campaign = async (metadata: Record<string, unknown>) =>
    (
      await w.as("manager").post("/v1/campaigns", {
        name: `WA ${Math.random()}`,
        type: "one_time",
        channels: ["whatsapp", "sms"],
        locationId: loc.id,
        metadata,
      })
    ).body.id as string;
  const failedWhatsApp = async (campaignId: string, contactId: string) => {
    const api = metaCloudStandIn({
      accessToken: TOKEN,
      templates: { promo_offer: { category: "MARKETING", status: "APPROVED" } },
    });
    const id = await pendingRow({
      tenantId: w.tenantA.id,
      contactId,
      locationId: loc.id,
      channel: "whatsapp",
      campaignId,
      metadata: { whatsappTemplate: { name: "promo_offer", language: "en_US" } },
    });
    await runSends([id], { fetch: api.fetch });
    await postMeta(w.tenantA.id, await api.statusWebhook(META_SECRET));
    expect((await solicitationRow(id))!.status).toBe("FAILED");
    return id;
  };

  it("a campaign with whatsappFallbackToSms sends one SMS after a WhatsApp rule failure, through the policy", async () => {
    const id = await failedWhatsApp(await campaign({ whatsappFallbackToSms: true }), usContact.id);
    const sms = await pollUntil(
      () => fallbackOf(id),
      (r) => r !== undefined && r.status !== "PENDING",
    );
    expect(sms).toMatchObject({
      channel: "sms",
      contactId: usContact.id,
      locationId: loc.id,
      status: "SENT",
      metadata: { fallbackOf: id, fallbackReason: "whatsapp_marketing_us_blocked" },
    });
    // the handler running again (redelivery) creates nothing more
    const envelope = {
      id: "evt_x",
      type: "solicitation.failed" as const,
      tenantId: w.tenantA.id,
      occurredAt: new Date().toISOString(),
      data: { solicitationId: id, channel: "whatsapp", reason: (await solicitationRow(id))!.failureReason },
    };
    expect(await fallBackToSms(env, envelope)).toBe(sms!.id);
    expect(
      (
        await db()
          .select()
          .from(solicitations)
          .where(eq(solicitations.idempotencyKey, `sms-fallback:${id}`))
      ).length,
    ).toBe(1);
  });

  it("without SMS consent the fallback is BLOCKED NO_CONSENT; without the flag there is none", async () => {
    const noSms = await newContact(w, { phone: "+14155550903", consent: ["whatsapp"] });
    const id = await failedWhatsApp(await campaign({ whatsappFallbackToSms: true }), noSms.id);
    const sms = await pollUntil(
      () => fallbackOf(id),
      (r) => r !== undefined,
    );
    expect(sms).toMatchObject({ channel: "sms", status: "BLOCKED", blockedReason: "NO_CONSENT" });

    const off = await failedWhatsApp(await campaign({}), usContact.id);
    const envelope = {
      id: "evt_y",
      type: "solicitation.failed" as const,
      tenantId: w.tenantA.id,
      occurredAt: new Date().toISOString(),
      data: { solicitationId: off, channel: "whatsapp", reason: (await solicitationRow(off))!.failureReason },
    };
    expect(await fallBackToSms(env, envelope)).toBeNull();
    expect(await fallbackOf(off)).toBeUndefined();
  });
});

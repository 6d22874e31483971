import { env } from "cloudflare:workers";
import { and, desc, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { auditEvents, messagingSettings } from "../../src/db/schema";
import { decryptSecret } from "../../src/lib/crypto";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterEach(() => vi.restoreAllMocks());

const SECRET = "SG.super-secret-value-123";
const emailBody = {
  provider: "sendgrid",
  fromAddress: "Hello@Acme.test",
  fromName: "Acme Dental",
  credentials: { apiKey: SECRET },
};

const row = (tenantId: string, channel: "email" | "sms" | "whatsapp") =>
  db()
    .select()
    .from(messagingSettings)
    .where(and(eq(messagingSettings.tenantId, tenantId), eq(messagingSettings.channel, channel)))
    .get();

const lastAudit = (action: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, action)))
    .orderBy(desc(auditEvents.occurredAt))
    .limit(1)
    .get();

describe("email settings", () => {
  it("is 404 until set", async () => {
    const res = await w.as("viewer").get("/v1/settings/email");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
  });

  it("PUT stores the config, returns which credentials are set but never their values", async () => {
    const res = await w.as("tenantAdmin").put("/v1/settings/email", emailBody);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider: "sendgrid",
      fromAddress: "hello@acme.test",
      fromName: "Acme Dental",
      replyToAddress: null,
      senderDomain: "acme.test",
      dkimStatus: "pending",
      dmarcStatus: "pending",
      domainCheck: null,
      fallbackToPlatform: false,
      options: {},
      credentialsSet: ["apiKey"],
      updatedAt: expect.any(String),
    });
    expect(res.text).not.toContain(SECRET);
    const get = await w.as("viewer").get("/v1/settings/email");
    expect(get.body).toEqual(res.body);
    expect(get.text).not.toContain(SECRET);
  });

  it("encrypts credentials at rest (AES-GCM under ENCRYPTION_KEY)", async () => {
    const r = (await row(w.tenantA.id, "email"))!;
    expect(r.credentials).toMatch(/^v1\./);
    expect(r.credentials).not.toContain(SECRET);
    expect(JSON.parse(await decryptSecret(r.credentials!, env.ENCRYPTION_KEY!))).toEqual({ apiKey: SECRET });
  });

  it("audits the change without the credentials", async () => {
    const audit = (await lastAudit("settings.email.updated"))!;
    expect(audit).toMatchObject({
      resourceType: "messaging_settings",
      resourceId: `${w.tenantA.id}:email`,
      actorId: w.users.tenantAdmin.id,
    });
    expect(audit.nextState).toMatchObject({ provider: "sendgrid", credentialFields: ["apiKey"] });
    expect(audit.metadata).toMatchObject({ credentialsChanged: ["apiKey"] });
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    expect(JSON.stringify(audit)).not.toContain((await row(w.tenantA.id, "email"))!.credentials!);
  });

  it("keeps stored credentials on a PUT without them, merges new keys, null removes one", async () => {
    const res = await w.as("tenantAdmin").put("/v1/settings/email", {
      ...emailBody,
      credentials: { webhookVerificationKey: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" },
    });
    expect(res.body.credentialsSet).toEqual(["apiKey", "webhookVerificationKey"]);
    const kept = await w
      .as("tenantAdmin")
      .put("/v1/settings/email", { ...emailBody, fromName: "Acme", credentials: undefined });
    expect(kept.body).toMatchObject({ fromName: "Acme", credentialsSet: ["apiKey", "webhookVerificationKey"] });
    const removed = await w
      .as("tenantAdmin")
      .put("/v1/settings/email", { ...emailBody, credentials: { webhookVerificationKey: null } });
    expect(removed.body.credentialsSet).toEqual(["apiKey"]);
  });

  it("validates per provider: required credentials and options, foreign fields, bad values", async () => {
    const cases: [object, string[]][] = [
      [{ provider: "sendgrid", fromAddress: "a@b.test", fromName: "A", credentials: { apiKey: null } }, []],
      [
        { provider: "ses", fromAddress: "a@b.test", fromName: "A", credentials: { accessKeyId: "AKID" } },
        ["options.region", "credentials.secretAccessKey"],
      ],
      [
        {
          provider: "ses",
          fromAddress: "a@b.test",
          fromName: "A",
          options: { region: "us-east-1" },
          credentials: { apiKey: "x", accessKeyId: "a", secretAccessKey: "s" },
        },
        ["credentials.apiKey"],
      ],
      [
        {
          provider: "acs",
          fromAddress: "a@b.test",
          fromName: "A",
          options: { endpoint: "https://evil.test" },
          credentials: { accessKey: "k" },
        },
        ["options.endpoint"],
      ],
      [
        { provider: "smtp", fromAddress: "a@b.test", fromName: "A", options: { host: "smtp.b.test", port: 25 } },
        ["options.port"],
      ],
      [
        {
          provider: "smtp",
          fromAddress: "a@b.test",
          fromName: "A",
          options: { host: "smtp.b.test", port: 587 },
          credentials: { username: "u" },
        },
        ["credentials.password"],
      ],
      [
        {
          provider: "sendgrid",
          fromAddress: "a@b.test",
          fromName: "A",
          options: { region: "us-east-1" },
          credentials: { apiKey: "k" },
        },
        ["options.region"],
      ],
      [
        {
          provider: "sendgrid",
          fromAddress: "a@b.test",
          fromName: "A",
          options: { colour: "red" },
          credentials: { apiKey: "k" },
        },
        ["options"],
      ],
      [{ provider: "mailchimp", fromAddress: "not-an-email", fromName: "A" }, ["provider", "fromAddress"]],
    ];
    const before = await w.as("viewer").get("/v1/settings/email");
    for (const [body, paths] of cases) {
      const res = await w.as("tenantAdmin").put("/v1/settings/email", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      const got = res.body.details.issues.map((i: { path: string }) => i.path);
      if (paths.length) expect(got, JSON.stringify(body)).toEqual(expect.arrayContaining(paths));
      else expect(got).toEqual(["credentials.apiKey"]);
    }
    expect((await w.as("viewer").get("/v1/settings/email")).body).toEqual(before.body);
  });

  it("accepts a complete SES config and an incomplete one that falls back to the platform", async () => {
    const ses = await w.as("tenantBAdmin").put("/v1/settings/email", {
      provider: "ses",
      fromAddress: "a@b.test",
      fromName: "B",
      options: { region: "eu-west-1", dkimTokens: ["abc123"] },
      credentials: { accessKeyId: "AKIA", secretAccessKey: "secret" },
    });
    expect(ses.status).toBe(200);
    expect(ses.body).toMatchObject({
      options: { region: "eu-west-1", dkimTokens: ["abc123"] },
      credentialsSet: ["accessKeyId", "secretAccessKey"],
    });
    const fallback = await w
      .as("tenantBAdmin")
      .put("/v1/settings/email", { provider: "acs", fromAddress: "a@b.test", fromName: "B", fallbackToPlatform: true });
    expect(fallback.status).toBe(200);
    // changing provider drops the old provider's credentials
    expect(fallback.body).toMatchObject({ provider: "acs", fallbackToPlatform: true, credentialsSet: [] });
  });

  it("needs tenant_admin to write; any role reads", async () => {
    for (const who of ["manager", "tenantUser", "viewer"] as const) {
      expect((await w.as(who).put("/v1/settings/email", emailBody)).status).toBe(403);
      expect((await w.as(who).post("/v1/settings/email/verify-domain")).status).toBe(403);
    }
    expect((await w.as("tenantUser").get("/v1/settings/email")).status).toBe(200);
  });

  it("keeps tenants apart: B reads its own settings, and cannot reach A's", async () => {
    const mine = await w.as("tenantBAdmin").get("/v1/settings/email");
    expect(mine.body.fromName).toBe("B");
    expect((await w.as("tenantBAdmin", w.tenantA.id).get("/v1/settings/email")).status).toBe(403);
    expect((await w.as("tenantBAdmin", w.tenantA.id).put("/v1/settings/email", emailBody)).status).toBe(403);
    expect((await w.as("tenantAdmin").get("/v1/settings/email")).body.fromName).not.toBe("B");
  });
});

describe("verify-domain", () => {
  const DKIM = "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDwIRP/UC3SBsEmGqZ9ZJW3/DkMoGeLnQg1fWn7/zYt";
  type Answer = { Status: number; Answer?: { name: string; type: number; data: string }[] };
  const zone: Record<string, Answer> = {
    "s1._domainkey.acme.test": {
      Status: 0,
      Answer: [
        { name: "s1._domainkey.acme.test", type: 5, data: "s1.domainkey.u1.wl.sendgrid.net." },
        { name: "s1.domainkey.u1.wl.sendgrid.net", type: 16, data: `"${DKIM.slice(0, 40)}" "${DKIM.slice(40)}"` },
      ],
    },
    "_dmarc.acme.test": {
      Status: 0,
      Answer: [{ name: "_dmarc.acme.test", type: 16, data: '"v=DMARC1; p=quarantine; rua=mailto:d@acme.test"' }],
    },
    "_dmarc.nodns.test": { Status: 0 },
  };
  const dohCalls: string[] = [];
  const doh = (servfail = false) =>
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = new URL(new Request(input, init).url);
      dohCalls.push(url.toString());
      expect(new Headers(init?.headers).get("accept")).toBe("application/dns-json");
      expect(url.origin + url.pathname).toBe("https://cloudflare-dns.com/dns-query");
      expect(url.searchParams.get("type")).toBe("TXT");
      if (servfail) return Response.json({ Status: 2 });
      return Response.json(zone[url.searchParams.get("name")!] ?? { Status: 3 });
    });

  it("sets verified for a DKIM key at a provider selector and a DMARC record, with what was found; audited", async () => {
    await w.as("tenantAdmin").put("/v1/settings/email", emailBody);
    doh();
    const res = await w.as("tenantAdmin").post("/v1/settings/email/verify-domain");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dkimStatus: "verified", dmarcStatus: "verified" });
    expect(res.body.domainCheck).toEqual({
      checkedAt: expect.any(String),
      dkim: [
        { selector: "s1", name: "s1._domainkey.acme.test", status: "verified", record: DKIM },
        { selector: "s2", name: "s2._domainkey.acme.test", status: "failed", record: null },
      ],
      dmarc: { name: "_dmarc.acme.test", status: "verified", record: "v=DMARC1; p=quarantine; rua=mailto:d@acme.test" },
    });
    expect(dohCalls.map((u) => new URL(u).searchParams.get("name")).sort()).toEqual([
      "_dmarc.acme.test",
      "s1._domainkey.acme.test",
      "s2._domainkey.acme.test",
    ]);
    expect((await w.as("viewer").get("/v1/settings/email")).body).toMatchObject({
      dkimStatus: "verified",
      dmarcStatus: "verified",
    });
    const audit = (await lastAudit("settings.email.domain_checked"))!;
    expect(audit.nextState).toMatchObject({ dkimStatus: "verified", dmarcStatus: "verified" });
  });

  it("sets failed when the lookups answer with no record (NXDOMAIN / empty)", async () => {
    await w
      .as("tenantAdmin")
      .put("/v1/settings/email", { ...emailBody, senderDomain: "nodns.test", options: { dkimSelectors: ["mx1"] } });
    doh();
    const res = await w.as("tenantAdmin").post("/v1/settings/email/verify-domain");
    expect(res.body).toMatchObject({ senderDomain: "nodns.test", dkimStatus: "failed", dmarcStatus: "failed" });
    expect(res.body.domainCheck.dkim).toEqual([
      { selector: "mx1", name: "mx1._domainkey.nodns.test", status: "failed", record: null },
    ]);
  });

  it("takes selectors for one check from the body", async () => {
    doh();
    const res = await w.as("tenantAdmin").post("/v1/settings/email/verify-domain", { selectors: ["s1"] });
    expect(res.body.domainCheck.dkim).toEqual([
      { selector: "s1", name: "s1._domainkey.nodns.test", status: "failed", record: null },
    ]);
    const bad = await w.as("tenantAdmin").post("/v1/settings/email/verify-domain", { selectors: ["bad selector!"] });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toBe("selectors.0");
  });

  it("stays pending when the resolver fails (SERVFAIL), saying why", async () => {
    doh(true);
    const res = await w.as("tenantAdmin").post("/v1/settings/email/verify-domain");
    expect(res.body).toMatchObject({ dkimStatus: "pending", dmarcStatus: "pending" });
    expect(res.body.domainCheck.error).toContain("answered status 2");
  });

  it("a new sender domain resets the statuses to pending", async () => {
    const res = await w.as("tenantAdmin").put("/v1/settings/email", { ...emailBody, senderDomain: "acme.test" });
    expect(res.body).toMatchObject({ dkimStatus: "pending", dmarcStatus: "pending", domainCheck: null });
  });

  it("needs a sender domain, and settings to exist", async () => {
    await w.as("tenantAdmin").put("/v1/settings/email", { ...emailBody, senderDomain: null });
    const res = await w.as("tenantAdmin").post("/v1/settings/email/verify-domain");
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("senderDomain");
    await db()
      .delete(messagingSettings)
      .where(and(eq(messagingSettings.tenantId, w.tenantB.id), eq(messagingSettings.channel, "email")));
    const none = await w.as("tenantBAdmin").post("/v1/settings/email/verify-domain");
    expect(none.status).toBe(404);
  });
});

describe("sms and whatsapp settings", () => {
  const SID = "AC0123456789abcdef0123456789abcdef";

  it("PUT/GET SMS with Twilio; the auth token is write-only", async () => {
    const res = await w.as("tenantAdmin").put("/v1/settings/sms", {
      provider: "twilio",
      fromNumber: "+15551234567",
      options: { accountSid: SID },
      credentials: { authToken: "twilio-secret" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider: "twilio",
      fromNumber: "+15551234567",
      fallbackToPlatform: false,
      options: { accountSid: SID },
      credentialsSet: ["authToken"],
      updatedAt: expect.any(String),
    });
    const get = await w.as("viewer").get("/v1/settings/sms");
    expect(get.body).toEqual(res.body);
    expect(get.text).not.toContain("twilio-secret");
    expect((await row(w.tenantA.id, "sms"))!.credentials).not.toContain("twilio-secret");
    expect((await lastAudit("settings.sms.updated"))!.resourceId).toBe(`${w.tenantA.id}:sms`);
  });

  it("validates SMS: a sender is needed, numbers are E.164, the SID has its shape", async () => {
    const noSender = await w
      .as("tenantAdmin")
      .put("/v1/settings/sms", { provider: "twilio", options: { accountSid: SID }, credentials: { authToken: "t" } });
    expect(noSender.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["fromNumber"]);
    const bad = await w
      .as("tenantAdmin")
      .put("/v1/settings/sms", { provider: "twilio", fromNumber: "555-1234", options: { accountSid: "nope" } });
    expect(bad.body.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(["fromNumber", "options.accountSid"]),
    );
    expect((await w.as("manager").put("/v1/settings/sms", { provider: "twilio" })).status).toBe(403);
  });

  it("PUT/GET WhatsApp with Meta (phone number id) and Twilio (E.164 sender)", async () => {
    const meta = await w.as("tenantAdmin").put("/v1/settings/whatsapp", {
      provider: "meta",
      channelRegistrationId: "106540352242922",
      credentials: { accessToken: "EAAG", appSecret: "app-secret", verifyToken: "vt" },
    });
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({
      provider: "meta",
      channelRegistrationId: "106540352242922",
      credentialsSet: ["accessToken", "appSecret", "verifyToken"],
    });
    expect(meta.text).not.toContain("app-secret");
    const badTwilio = await w.as("tenantAdmin").put("/v1/settings/whatsapp", {
      provider: "twilio",
      channelRegistrationId: "106540352242922",
      options: { accountSid: SID },
      credentials: { authToken: "t" },
    });
    expect(badTwilio.status).toBe(400);
    expect(badTwilio.body.details.issues[0].path).toBe("channelRegistrationId");
    const missing = await w
      .as("tenantAdmin")
      .put("/v1/settings/whatsapp", { provider: "meta", credentials: { accessToken: "x" } });
    expect(missing.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["channelRegistrationId"]);
    expect((await w.as("viewer").get("/v1/settings/whatsapp")).body.provider).toBe("meta");
    expect((await w.as("tenantBAdmin").get("/v1/settings/whatsapp")).status).toBe(404);
  });
});

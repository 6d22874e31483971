import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, outboxMessages, solicitations } from "../../src/db/schema";
import { sendTestMessage, TEST_SEND_LIMIT } from "../../src/modules/messaging-settings/test-send";
import { client } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { jsonResponse, standIn } from "../providers/messaging/stand-in";
import { ctxFor } from "../reviews/helpers";

// POST /v1/settings/messaging/test: a test message through the tenant's channel to an address the caller
// gives, with no contact or solicitation (docs/messaging.md, "Test send").

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const testSend = (body: unknown, as: Parameters<World["as"]>[0] = "manager") =>
  w.as(as).post("/v1/settings/messaging/test", body);

const solicitationCount = async (tenantId: string) =>
  (await db().select({ n: count() }).from(solicitations).where(eq(solicitations.tenantId, tenantId)))[0]!.n;

describe("POST /v1/settings/messaging/test", () => {
  it("with no provider configured, the dev mailbox takes it: fixed content, no solicitation, audited with the address masked", async () => {
    const res = await testSend({ channel: "email", to: "Owner@Example.com" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      channel: "email",
      to: "owner@example.com",
      provider: "outbox",
      source: "dev_mailbox",
      accepted: true,
      providerMessageId: expect.stringMatching(/^outbox_/),
      error: null,
    });
    const mail = await db()
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.id, res.body.providerMessageId))
      .get();
    expect(mail).toMatchObject({
      tenantId: w.tenantA.id,
      channel: "email",
      to: "owner@example.com",
      subject: `Test message from ${w.tenantA.name}`,
      solicitationId: null,
    });
    expect(mail!.text).toContain("your email settings work");
    expect(await solicitationCount(w.tenantA.id)).toBe(0);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "messaging.test_sent")))
      .get();
    expect(audit).toMatchObject({
      resourceType: "messaging_settings",
      resourceId: `${w.tenantA.id}:email`,
      actorId: w.users.manager.id,
      nextState: expect.objectContaining({ to: "o***@example.com", provider: "outbox", accepted: true }),
    });
    expect(JSON.stringify(audit)).not.toContain("owner@example.com");

    const sms = await testSend({ channel: "sms", to: "+14155550100" });
    expect(sms.body).toMatchObject({ channel: "sms", provider: "outbox", accepted: true });
    const text = await db()
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.id, sms.body.providerMessageId))
      .get();
    expect(text).toMatchObject({ to: "+14155550100", channel: "sms", subject: null });
  });

  it("bad input is 400 VALIDATION_ERROR naming the field, and uses no test slot", async () => {
    for (const [body, path] of [
      [{ channel: "email", to: "+14155550100" }, "to"],
      [{ channel: "sms", to: "owner@example.com" }, "to"],
      [{ channel: "whatsapp", to: "4155550100" }, "to"],
      [{ channel: "fax", to: "+14155550100" }, "channel"],
      [
        { channel: "email", to: "a@example.com", whatsappTemplate: { name: "hello_world", language: "en_US" } },
        "whatsappTemplate",
      ],
      [{ channel: "email", to: "a@example.com", text: "buy now" }, ""],
      [{ channel: "email" }, "to"],
    ] as const) {
      const res = await testSend(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      if (path) expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });

  it("manager and up (and the agency's admin); viewer and tenant_user 403; API keys refused", async () => {
    const body = { channel: "email", to: "roles@example.com" };
    for (const as of ["viewer", "tenantUser", "otherAgencyAdmin"] as const) {
      const res = await testSend(body, as);
      expect(res.status, as).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
    for (const as of ["tenantAdmin", "agencyAdmin"] as const) expect((await testSend(body, as)).status, as).toBe(200);
    const key = (
      await w
        .as("tenantAdmin")
        .post("/v1/api-keys", { name: "every scope", scopes: ["write:contacts", "write:campaigns"] })
    ).body.key;
    const denied = await client(key, w.tenantA.id).post("/v1/settings/messaging/test", body);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("FORBIDDEN");
  });

  it(`at most ${TEST_SEND_LIMIT} per hour per business, under concurrent requests too; then 429 with Retry-After`, async () => {
    const answers = await Promise.all(
      Array.from({ length: TEST_SEND_LIMIT + 3 }, (_, i) =>
        testSend({ channel: "email", to: `burst${i}@example.com` }, "tenantBAdmin"),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(TEST_SEND_LIMIT);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect(r.body.code).toBe("RATE_LIMITED");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(r.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    }
    const sent = await db()
      .select({ n: count() })
      .from(outboxMessages)
      .where(eq(outboxMessages.tenantId, w.tenantB.id));
    expect(sent[0]!.n).toBe(TEST_SEND_LIMIT);
    // tenant A's slots are its own
    expect((await testSend({ channel: "email", to: "still@example.com" })).status).toBe(200);
  });
});

describe("sendTestMessage through the tenant's own provider (a SendGrid stand-in)", () => {
  beforeAll(async () => {
    const put = await w.as("tenantAdmin").put("/v1/settings/email", {
      provider: "sendgrid",
      fromAddress: "hello@acme.test",
      fromName: "Acme Dental",
      credentials: { apiKey: "SG.test-key" },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });

  it("accepted: the provider's message id, source tenant, the request as SendGrid documents it", async () => {
    const sg = standIn(() => new Response(null, { status: 202, headers: { "x-message-id": "sg-123" } }));
    const result = await sendTestMessage(
      ctxFor(w.tenantA.id, w.users.manager.id),
      { channel: "email", to: "owner@example.com" },
      { fetch: sg.fetch },
    );
    expect(result).toMatchObject({
      provider: "sendgrid",
      source: "tenant",
      accepted: true,
      providerMessageId: "sg-123",
    });
    expect(sg.calls).toHaveLength(1);
    expect(sg.last().req.url).toBe("https://api.sendgrid.com/v3/mail/send");
    expect(sg.last().req.headers.get("authorization")).toBe("Bearer SG.test-key");
    const sent = JSON.parse(sg.last().body);
    expect(sent.personalizations[0].to).toEqual([{ email: "owner@example.com" }]);
    expect(sent.from).toEqual({ email: "hello@acme.test", name: "Acme Dental" });
    expect(sent.subject).toBe(`Test message from ${w.tenantA.name}`);
  });

  it("refused: the answer carries the provider's error instead of failing the call, and the audit says so", async () => {
    const sg = standIn(() =>
      jsonResponse(401, { errors: [{ message: "The provided authorization grant is invalid" }] }),
    );
    const result = await sendTestMessage(
      ctxFor(w.tenantA.id, w.users.manager.id),
      { channel: "email", to: "owner@example.com" },
      { fetch: sg.fetch },
    );
    expect(result).toMatchObject({
      provider: "sendgrid",
      accepted: false,
      providerMessageId: null,
      error: { status: 401, retryable: false, message: expect.stringContaining("authorization grant is invalid") },
    });
    const audits = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "messaging.test_sent")));
    expect(audits.some((a) => (a.nextState as { accepted: boolean; provider: string }).accepted === false)).toBe(true);
  });
});

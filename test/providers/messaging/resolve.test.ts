import { env } from "cloudflare:workers";
import { desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { outboxMessages } from "../../../src/db/schema";
import type { Env } from "../../../src/env";
import { loadWebhookKeys } from "../../../src/providers/messaging/callbacks/keys";
import { resolveProvider } from "../../../src/providers/messaging/resolve";
import { sendTransactionalEmail } from "../../../src/providers/messaging/transactional";
import { createWorld, db, type World } from "../../helpers/seed";
import { jsonResponse, standIn } from "./stand-in";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const platformEnv = (extra: Partial<Env> = {}): Env => ({
  ...env,
  PLATFORM_EMAIL_PROVIDER: "sendgrid",
  PLATFORM_EMAIL_FROM_ADDRESS: "noreply@platform.test",
  PLATFORM_EMAIL_FROM_NAME: "Platform",
  PLATFORM_SENDGRID_API_KEY: "SG.platform",
  PLATFORM_SMS_PROVIDER: "twilio",
  PLATFORM_SMS_FROM_NUMBER: "+15550000000",
  PLATFORM_TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
  PLATFORM_TWILIO_AUTH_TOKEN: "platform-token",
  ...extra,
});

const mail = (tenantId: string | null) => ({
  tenantId,
  channel: "email" as const,
  to: "ann@example.com",
  subject: "Hi",
  text: "Hello",
});

describe("resolveProvider", () => {
  it("uses the outbox when neither the tenant nor the platform has a provider", async () => {
    const p = await resolveProvider(db(), env, w.tenantA.id, "email");
    expect(p.name).toBe("outbox");
    const receipt = await p.send(mail(w.tenantA.id));
    const row = await db().select().from(outboxMessages).where(eq(outboxMessages.id, receipt.providerMessageId)).get();
    expect(row).toMatchObject({ tenantId: w.tenantA.id, to: "ann@example.com", subject: "Hi" });
  });

  it("falls back to the platform's provider for a tenant without settings", async () => {
    const api = standIn(() => new Response(null, { status: 202, headers: { "x-message-id": "p1" } }));
    const p = await resolveProvider(db(), platformEnv(), w.tenantB.id, "email", api.fetch);
    expect(await p.send(mail(w.tenantB.id))).toEqual({ provider: "sendgrid", providerMessageId: "p1" });
    expect(api.last().req.headers.get("authorization")).toBe("Bearer SG.platform");
    expect(JSON.parse(api.last().body).from).toEqual({ email: "noreply@platform.test", name: "Platform" });
  });

  it("ignores an incomplete platform configuration (outbox instead)", async () => {
    const p = await resolveProvider(db(), platformEnv({ PLATFORM_SENDGRID_API_KEY: undefined }), w.tenantB.id, "email");
    expect(p.name).toBe("outbox");
  });

  it("uses the tenant's own provider and decrypted credentials once configured", async () => {
    const put = await w.as("tenantAdmin").put("/v1/settings/email", {
      provider: "sendgrid",
      fromAddress: "hello@acme.test",
      fromName: "Acme",
      credentials: { apiKey: "SG.tenant-a" },
    });
    expect(put.status).toBe(200);
    const api = standIn(() => new Response(null, { status: 202, headers: { "x-message-id": "t1" } }));
    const p = await resolveProvider(db(), platformEnv(), w.tenantA.id, "email", api.fetch);
    await p.send(mail(w.tenantA.id));
    expect(api.last().req.headers.get("authorization")).toBe("Bearer SG.tenant-a");
    expect(JSON.parse(api.last().body).from).toEqual({ email: "hello@acme.test", name: "Acme" });
  });

  it("with fallbackToPlatform and no credentials, sends through the platform keeping the tenant's name and reply-to", async () => {
    const put = await w.as("tenantBAdmin").put("/v1/settings/email", {
      provider: "ses",
      fromAddress: "hi@b.test",
      fromName: "Tenant B",
      replyToAddress: "desk@b.test",
      fallbackToPlatform: true,
    });
    expect(put.status).toBe(200);
    const api = standIn(() => new Response(null, { status: 202, headers: { "x-message-id": "fb" } }));
    await (await resolveProvider(db(), platformEnv(), w.tenantB.id, "email", api.fetch)).send(mail(w.tenantB.id));
    expect(JSON.parse(api.last().body)).toMatchObject({
      from: { email: "noreply@platform.test", name: "Tenant B" },
      reply_to: { email: "desk@b.test" },
    });
    expect(api.last().req.headers.get("authorization")).toBe("Bearer SG.platform");
  });

  it("resolves SMS to the tenant's Twilio with a status callback naming the tenant", async () => {
    const put = await w.as("tenantAdmin").put("/v1/settings/sms", {
      provider: "twilio",
      fromNumber: "+15551112222",
      options: { accountSid: "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
      credentials: { authToken: "tenant-token" },
    });
    expect(put.status).toBe(200);
    const api = standIn(() => jsonResponse(201, { sid: "SMx" }));
    await (await resolveProvider(db(), platformEnv(), w.tenantA.id, "sms", api.fetch)).send({
      tenantId: w.tenantA.id,
      channel: "sms",
      to: "+15557654321",
      text: "hi",
    });
    expect(api.last().req.url).toBe(
      "https://api.twilio.com/2010-04-01/Accounts/ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/Messages.json",
    );
    expect(api.last().req.headers.get("authorization")).toBe(
      `Basic ${btoa("ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:tenant-token")}`,
    );
    expect(new URLSearchParams(api.last().body).get("StatusCallback")).toBe(
      `${env.PUBLIC_BASE_URL}/webhooks/providers/twilio?tenant=${w.tenantA.id}`,
    );
  });

  it("loads webhook keys: the tenant's when the URL names it, and the platform's", async () => {
    const keys = await loadWebhookKeys(platformEnv(), "twilio", w.tenantA.id);
    expect(keys.twilioAuthTokens).toEqual(["tenant-token", "platform-token"]);
    expect((await loadWebhookKeys(platformEnv(), "twilio", null)).twilioAuthTokens).toEqual(["platform-token"]);
    expect((await loadWebhookKeys(env, "twilio", w.tenantB.id)).twilioAuthTokens).toEqual([]);
  });
});

describe("emailProviderFor (transactional email)", () => {
  it("goes to the outbox with no provider, and to the tenant's provider once it has one", async () => {
    const receipt = await sendTransactionalEmail(env, {
      tenantId: null,
      to: "new@user.test",
      subject: "Invite",
      text: "Join",
    });
    expect(receipt.provider).toBe("outbox");
    const [row] = await db().select().from(outboxMessages).orderBy(desc(outboxMessages.createdAt)).limit(1);
    expect(row).toMatchObject({ to: "new@user.test", subject: "Invite" });

    const sent: Request[] = [];
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      sent.push(new Request(input, init));
      return new Response(null, { status: 202, headers: { "x-message-id": "tx1" } });
    });
    try {
      const viaTenant = await sendTransactionalEmail(env, {
        tenantId: w.tenantA.id,
        to: "new@user.test",
        subject: "Invite",
        text: "Join",
      });
      expect(viaTenant).toEqual({ provider: "sendgrid", providerMessageId: "tx1" });
      expect(sent[0]!.headers.get("authorization")).toBe("Bearer SG.tenant-a");
    } finally {
      spy.mockRestore();
    }
  });
});

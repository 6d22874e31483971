import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client";
import { outboxMessages } from "../../src/db/schema";
import { controlDb, shardDb } from "../../src/db/shards";
import { sendTransactionalEmail, useTransactionalFetch } from "../../src/providers/messaging/transactional";
import { latestEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { pollUntil } from "../helpers/poll";
import { createWorld, seedUser, type World } from "../helpers/seed";
import { standIn } from "../providers/messaging/stand-in";

/**
 * Mail of a shard-1 tenant: account mail of control-plane flows (invites, access grants, resets) goes
 * through the platform's sender only (docs/SECURITY.md, "Account mail"), stored with no tenant on the
 * control database when the platform has no provider; the tenant's notifications (an SLA escalation
 * swept on its shard) use the tenant's own email settings (docs/scaling.md).
 */
const sendgrid = standIn(
  () => new Response(null, { status: 202, headers: { "x-message-id": `sg-${crypto.randomUUID()}` } }),
);
let w: World;

beforeAll(async () => {
  // tenant A on shard 1 (its own database), tenant B on shard 0 (the control database)
  w = await createWorld({ shardA: 1, shardB: 0 });
  useTransactionalFetch(sendgrid.fetch);
  const put = await w.as("tenantAdmin").put("/v1/settings/email", {
    provider: "sendgrid",
    fromAddress: "team@shard-one.test",
    fromName: "Shard One Team",
    credentials: { apiKey: "SG.shard-one" },
  });
  expect(put.status).toBe(200);
});
afterAll(() => useTransactionalFetch(null));

interface SentMail {
  to: string;
  from: { email: string; name?: string };
  subject: string;
  text: string;
  apiKey: string | null;
  tenantId: string | undefined;
}

/** What SendGrid received for this address, oldest first. */
const sentTo = (to: string): SentMail[] =>
  sendgrid.calls
    .map((c) => ({ body: JSON.parse(c.body), auth: c.req.headers.get("authorization") }))
    .filter((c) => c.body.personalizations[0].to[0].email === to)
    .map(({ body, auth }) => ({
      to,
      from: body.from,
      subject: body.subject,
      text: body.content.find((p: { type: string }) => p.type === "text/plain").value,
      apiKey: auth?.replace(/^Bearer /, "") ?? null,
      tenantId: body.custom_args?.tenant_id,
    }));

const outboxRowsTo = async (db: Db, to: string) =>
  await db
    .select({ tenantId: outboxMessages.tenantId, subject: outboxMessages.subject })
    .from(outboxMessages)
    .where(eq(outboxMessages.to, to));

const unique = (what: string) => `${what}-${crypto.randomUUID().slice(0, 8)}@example.test`;

describe("control-plane emails of a shard-1 tenant", () => {
  it("an invite, its acceptance and a password reset never use the tenant's sender: with no platform provider they land in the control database's outbox", async () => {
    const email = unique("invitee");
    const invited = await w.as("tenantAdmin").post("/v1/users/invite", { email, name: "Invitee", role: "viewer" });
    expect(invited.status).toBe(201);
    const invite = await latestEmailTo(email);
    expect(invite).toMatchObject({ tenantId: null, subject: `You are invited to ${w.tenantA.name}` });
    const setup = await request("POST", "/auth/setup-password", {
      body: { inviteToken: tokenIn(invite!.text), name: "Accepted", password: "accepted-pass-1" },
    });
    expect(setup.status).toBe(200);

    expect((await request("POST", "/auth/forgot-password", { body: { email } })).body).toEqual({ ok: true });
    // the reset email is sent after the response (waitUntil): wait for it
    const rows = await pollUntil(
      async () => outboxRowsTo(controlDb(env), email),
      (r) => r.length === 2,
    );
    expect(rows.map((r) => r.tenantId)).toEqual([null, null]);
    const reset = (await latestEmailTo(email))!;
    expect(reset.subject).toBe("Reset your password");
    expect(
      (
        await request("POST", "/auth/reset-password", {
          body: { token: tokenIn(reset.text), password: "reset-pass-22" },
        })
      ).body,
    ).toMatchObject({ ok: true });

    // nothing through the tenant's SendGrid account, nothing on the tenant's shard
    expect(sentTo(email)).toEqual([]);
    expect(await outboxRowsTo(shardDb(env, 1), email)).toEqual([]);
  });

  it("an existing account granted access to the shard-1 tenant is told through the platform's sender, not the tenant's", async () => {
    const existing = await seedUser({
      grants: [{ role: "viewer", scopeType: "tenant", scopeId: w.tenantB.id }],
      tenantId: w.tenantB.id,
      email: unique("existing"),
    });
    const granted = await w.as("tenantAdmin").post("/v1/users/invite", { email: existing.email, role: "viewer" });
    expect(granted.status).toBe(201);
    expect(sentTo(existing.email)).toEqual([]);
    expect(await outboxRowsTo(controlDb(env), existing.email)).toEqual([
      { tenantId: null, subject: `You now have access to ${w.tenantA.name}` },
    ]);
  });

  it("a white-labelled shard-1 tenant's mail carries its agency's brand: account mail from the platform's sender, an escalation swept on its shard from the tenant's", async () => {
    const brand = await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, {
      name: "Northwind Partners",
      supportEmail: "help@northwind.test",
    });
    expect(brand.status).toBe(200);
    const email = unique("branded");
    expect((await w.as("tenantAdmin").post("/v1/users/invite", { email, role: "viewer" })).status).toBe(201);
    const invite = await latestEmailTo(email);
    expect(invite).toMatchObject({ tenantId: null, subject: `You are invited to ${w.tenantA.name}` });
    expect(invite!.text).toContain("help@northwind.test");
    // as an SLA escalation sends it: background work on shard 1 (env.DB is the shard, the brand is a control row)
    await sendTransactionalEmail(env, {
      tenantId: w.tenantA.id,
      to: email,
      subject: "1 review overdue",
      text: "Respond.\n",
    });
    const [escalation] = sentTo(email);
    expect(escalation).toMatchObject({
      from: { email: "team@shard-one.test", name: "Northwind Partners" },
      apiKey: "SG.shard-one",
      tenantId: w.tenantA.id,
      subject: "1 review overdue",
    });
    expect(escalation!.text).toContain("help@northwind.test");
  });

  it("with no usable tenant sender, the tenant's own mail is stored in the outbox on its shard, not on the control database", async () => {
    // no API key left, and the platform has no email provider in the tests: the outbox
    const off = await w.as("tenantAdmin").put("/v1/settings/email", {
      provider: "sendgrid",
      fromAddress: "team@shard-one.test",
      fromName: "Shard One Team",
      fallbackToPlatform: true,
      credentials: { apiKey: null },
    });
    expect(off.status).toBe(200);
    const email = unique("outboxed");
    await sendTransactionalEmail(env, {
      tenantId: w.tenantA.id,
      to: email,
      subject: "1 review overdue",
      text: "Respond.\n",
    });
    expect(sentTo(email)).toEqual([]);
    expect(await outboxRowsTo(shardDb(env, 1), email)).toEqual([
      { tenantId: w.tenantA.id, subject: "1 review overdue" },
    ]);
    expect(await outboxRowsTo(controlDb(env), email)).toEqual([]);
    // and the admin outbox finds it through the tenant filter
    const listed = await w.as("platformAdmin").get(`/admin/outbox?tenantId=${w.tenantA.id}&limit=50`);
    expect(listed.status).toBe(200);
    expect(
      listed.body.data.filter((m: { to: string }) => m.to === email).map((m: { tenantId: string }) => m.tenantId),
    ).toEqual([w.tenantA.id]);
  });

  it("a shard-0 tenant's invite is platform mail on the control database (which is also shard 0)", async () => {
    const email = unique("tenant-b");
    expect((await w.as("tenantBAdmin").post("/v1/users/invite", { email, role: "viewer" })).status).toBe(201);
    expect((await latestEmailTo(email))?.tenantId).toBeNull();
    expect(await outboxRowsTo(controlDb(env), email)).toEqual([
      { tenantId: null, subject: `You are invited to ${w.tenantB.name}` },
    ]);
    expect(await outboxRowsTo(shardDb(env, 1), email)).toEqual([]);
  });
});

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmailOptions, WorkerMailerOptions } from "worker-mailer";
import type { Env } from "../../../src/env";
import handler from "../../../src/index";
import { ACCOUNT_MAIL_KINDS, type AccountMailKind } from "../../../src/providers/messaging/account-mail";
import { useSmtpTransport } from "../../../src/providers/messaging/smtp";
import { tokenIn } from "../../helpers/dev-mailbox";
import { createWorld, seedUser, TEST_PASSWORD, type World } from "../../helpers/seed";

/**
 * Account mail (anything carrying a credential or a sign-in link) goes only through the platform's
 * own sender, never through a transport a tenant configured: a tenant_admin who points its tenant's
 * email at its own SMTP host must not receive the password reset of the platform admin, or of an
 * admin of another tenant who happens to be homed in its tenant (issue #30, item 1).
 */

interface SmtpConnection {
  host: string;
  port: number;
  secure: boolean;
  startTls: boolean;
  from: string;
  to: string;
  subject: string;
  text: string;
  reply: string | null;
}

// every SMTP connection any provider opens, tenant or platform, instead of a socket
const smtp: SmtpConnection[] = [];
const recorder = async (o: WorkerMailerOptions, e: EmailOptions) => {
  const from = typeof e.from === "string" ? e.from : e.from.email;
  const to =
    typeof e.to === "string"
      ? e.to
      : Array.isArray(e.to)
        ? String(typeof e.to[0] === "string" ? e.to[0] : e.to[0]!.email)
        : e.to.email;
  smtp.push({
    host: o.host,
    port: o.port,
    secure: !!o.secure,
    startTls: !!o.startTls,
    from,
    to,
    subject: e.subject,
    text: e.text ?? "",
    reply: e.reply ? (typeof e.reply === "string" ? e.reply : e.reply.email) : null,
  });
};

const ATTACKER_HOST = "mail.attacker-controlled.test";
const PLATFORM_HOST = "smtp.platform-sender.test";

/** The platform's own sender, as env-level settings (docs/messaging.md). */
const platformEnv: Env = {
  ...env,
  PLATFORM_EMAIL_PROVIDER: "smtp",
  PLATFORM_EMAIL_FROM_ADDRESS: "accounts@platform.test",
  PLATFORM_EMAIL_FROM_NAME: "Reputation Ops",
  PLATFORM_SMTP_HOST: PLATFORM_HOST,
  PLATFORM_SMTP_PORT: "465",
  PLATFORM_SMTP_SECURITY: "tls",
  PLATFORM_SMTP_USERNAME: "platform",
  PLATFORM_SMTP_PASSWORD: "platform-secret",
};

/** A request through the Worker's fetch handler with the platform sender configured; waits for its deferred work. */
async function call(method: string, path: string, o: { token?: string; tenantId?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.tenantId) headers["x-tenant-id"] = o.tenantId;
  const ctx = createExecutionContext();
  const res = await handler.fetch(
    new Request(`http://localhost:8787${path}`, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    }) as never,
    platformEnv as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const unique = (what: string) => `${what}-${crypto.randomUUID().slice(0, 8)}@example.test`;
const sentTo = (to: string) => smtp.filter((c) => c.to === to);

let w: World;
/** an admin of tenant B whose home tenant is A (A's admins administer the transport of A) */
let adminOfBHomedInA: Awaited<ReturnType<typeof seedUser>>;

beforeAll(async () => {
  useSmtpTransport(recorder);
  w = await createWorld();
  adminOfBHomedInA = await seedUser({
    grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: w.tenantB.id }],
    tenantId: w.tenantA.id,
  });
  // a tenant_admin of A points A's email transport at a host it controls
  const put = await call("PUT", "/v1/settings/email", {
    token: w.users.tenantAdmin.token,
    tenantId: w.tenantA.id,
    body: {
      provider: "smtp",
      fromAddress: "it@tenant-a.test",
      fromName: "Tenant A",
      replyToAddress: "collector@attacker-controlled.test",
      options: { host: ATTACKER_HOST, port: 465, security: "tls" },
      credentials: { username: "a", password: "b" },
    },
  });
  expect(put.status).toBe(200);
});
afterAll(() => useSmtpTransport(null));

/**
 * One way to make the service send each kind of account mail, through its real route. The Record
 * makes tsc fail when a kind is added to ACCOUNT_MAIL_KINDS without a flow here.
 */
const triggers: Record<AccountMailKind, () => Promise<{ to: string; subject: string }[]>> = {
  password_reset: async () => {
    const targets = [w.users.platformAdmin.email, adminOfBHomedInA.email, w.users.tenantAdmin.email];
    for (const email of targets)
      expect((await call("POST", "/auth/forgot-password", { body: { email } })).body).toEqual({ ok: true });
    return targets.map((to) => ({ to, subject: "Reset your password" }));
  },
  invite: async () => {
    const to = unique("invitee");
    expect(
      (
        await call("POST", "/v1/users/invite", {
          token: w.users.tenantAdmin.token,
          tenantId: w.tenantA.id,
          body: { email: to, role: "viewer" },
        })
      ).status,
    ).toBe(201);
    return [{ to, subject: `You are invited to ${w.tenantA.name}` }];
  },
  access_granted: async () => {
    const existing = await seedUser({ grants: [], tenantId: w.tenantB.id, email: unique("existing") });
    expect(
      (
        await call("POST", "/v1/users/invite", {
          token: w.users.tenantAdmin.token,
          tenantId: w.tenantA.id,
          body: { email: existing.email, role: "viewer" },
        })
      ).status,
    ).toBe(201);
    return [{ to: existing.email, subject: `You now have access to ${w.tenantA.name}` }];
  },
  password_changed: async () => {
    const person = await seedUser({
      grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: w.tenantB.id }],
      tenantId: w.tenantA.id,
      email: unique("changer"),
    });
    const changed = await call("POST", "/me/password", {
      token: person.token,
      body: { currentPassword: TEST_PASSWORD, newPassword: "another long password" },
    });
    expect(changed.status).toBe(200);
    return [{ to: person.email, subject: "Your password was changed" }];
  },
};

describe("account mail goes only through the platform's own sender", () => {
  it("every kind of account mail, for the platform admin and for admins homed in the tenant, lands with the platform sender and never touches the tenant's SMTP host", async () => {
    expect(Object.keys(triggers).sort()).toEqual([...ACCOUNT_MAIL_KINDS].sort());
    for (const kind of ACCOUNT_MAIL_KINDS) {
      for (const expected of await triggers[kind]()) {
        const mails = sentTo(expected.to);
        expect(
          mails.map((m) => [m.host, m.subject]),
          `${kind} to ${expected.to}`,
        ).toEqual([[PLATFORM_HOST, expected.subject]]);
        expect(mails[0]).toMatchObject({ from: "accounts@platform.test", port: 465, secure: true });
      }
    }
    // not one connection to the host the tenant admin configured
    expect(smtp.filter((c) => c.host === ATTACKER_HOST)).toEqual([]);
  });

  it("the reset the platform admin receives works; the tenant's reply-to never appears on account mail", async () => {
    const before = smtp.length;
    await call("POST", "/auth/forgot-password", { body: { email: w.users.platformAdmin.email } });
    const reset = smtp.slice(before).find((m) => m.to === w.users.platformAdmin.email)!;
    expect(reset.host).toBe(PLATFORM_HOST);
    const done = await call("POST", "/auth/reset-password", {
      body: { token: tokenIn(reset.text), password: "a brand new password" },
    });
    expect(done.body).toMatchObject({ ok: true, token: expect.any(String) });
    expect(smtp.filter((m) => m.host === PLATFORM_HOST).map((m) => m.reply)).not.toContain(
      "collector@attacker-controlled.test",
    );
  });

  it("tenant notification mail (an SLA escalation, an alert) still goes through the tenant's own transport", async () => {
    const { sendTransactionalEmail } = await import("../../../src/providers/messaging/transactional");
    const to = unique("manager");
    await sendTransactionalEmail(platformEnv, {
      tenantId: w.tenantA.id,
      to,
      subject: "1 review overdue",
      text: "Respond.\n",
    });
    expect(sentTo(to).map((m) => m.host)).toEqual([ATTACKER_HOST]);
  });
});

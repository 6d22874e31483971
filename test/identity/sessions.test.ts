// The one session model (docs/sessions.md): every sign-in method records a session that its credential
// names, every ender ends the sessions it should, the isolate cache lets an ended session through for
// at most PRINCIPAL_TTL_MS, and the lifetimes hold. Times are injected (`now`), never waited for.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  SESSION_END_REASONS,
  SESSION_METHODS,
  type SessionEndReason,
  type SessionMethod,
  sessions,
} from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/crypto";
import { verifySessionToken } from "../../src/lib/jwt";
import { purgeSessions, SESSION_ROW_RETENTION_DAYS } from "../../src/modules/identity/background";
import { PRINCIPAL_TTL_MS } from "../../src/modules/identity/principal-cache";
import { resolveCookieSession, resolveSessionPrincipal } from "../../src/modules/identity/service";
import { SESSION_LIFETIMES, SESSION_TOUCH_MS } from "../../src/modules/identity/session-state";
import { openSession } from "../../src/modules/identity/sessions";
import { ConsoleBrowser } from "../console/helpers";
import { emailIdsTo, latestEmailTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { control, createWorld, seedUser, sessionFor, TEST_PASSWORD, type World } from "../helpers/seed";
import { BASE, workerFetch } from "../mcp/helpers";
import { consoleExchange, postResponse, startLogin } from "../sso/flow";
import { base64, signedResponse } from "../sso/idp";
import { enableSso, spUrls } from "../sso/setup";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const rowOf = async (id: string) => (await control().select().from(sessions).where(eq(sessions.id, id)))[0];
const rowsOf = (userId: string) => control().select().from(sessions).where(eq(sessions.userId, userId));
const sidOf = async (token: string) => (await verifySessionToken(env, token))!.sessionId;
const newTenantUser = (email?: string) =>
  seedUser({
    grants: [{ role: "tenant_user", scopeType: "tenant", scopeId: w.tenantA.id }],
    tenantId: w.tenantA.id,
    email,
  });

async function resetToken(email: string) {
  const seen = await emailIdsTo(email);
  await request("POST", "/auth/forgot-password", { body: { email } });
  return tokenIn((await nextEmailTo(email, seen)).text);
}

/** The console's password sign-in (POST /app/sign-in): the cookie session it opens. */
async function pageSignIn(email: string) {
  const b = new ConsoleBrowser();
  const res = await b.signIn(email);
  expect(res.status).toBe(303);
  const raw = res.headers
    .getAll("set-cookie")
    .find((c) => c.startsWith("session="))!
    .split(";")[0]!;
  return { cookie: raw, value: raw.slice(raw.indexOf("=") + 1) };
}
const pageSignedIn = async (cookie: string) =>
  (await workerFetch(`${BASE}/app/me`, { redirect: "manual", headers: { cookie } })).status === 200;

describe("every sign-in method records a session, and its credential names it", () => {
  /** Each method of SESSION_METHODS, through its real route: the user and the session JWT it answers with. */
  type BearerSignIn = { userId: string; token: string; ssoTenantId?: string };
  const signIns: Record<SessionMethod, () => Promise<BearerSignIn | { cookie: string }>> = {
    password: async () => {
      const p = await newTenantUser();
      const res = await request("POST", "/auth/login", { body: { email: p.email, password: TEST_PASSWORD } });
      return { userId: p.id, token: res.body.token };
    },
    invite: async () => {
      const email = `invitee-${crypto.randomUUID().slice(0, 8)}@example.test`;
      const invited = await w.as("tenantAdmin").post("/v1/users/invite", { email, role: "viewer" });
      const res = await request("POST", "/auth/setup-password", {
        body: { inviteToken: tokenIn((await latestEmailTo(email))!.text), name: "Ivy", password: "invited-pass" },
      });
      return { userId: invited.body.id, token: res.body.token };
    },
    reset: async () => {
      const p = await newTenantUser();
      const res = await request("POST", "/auth/reset-password", {
        body: { token: await resetToken(p.email), password: "after-a-reset" },
      });
      return { userId: p.id, token: res.body.token };
    },
    bootstrap: async () => {
      const res = await request("POST", "/bootstrap", {
        // the pool runs with a BOOTSTRAP_SECRET made as setup:cloudflare makes it (vitest.config.mts)
        headers: { "x-bootstrap-secret": env.BOOTSTRAP_SECRET! },
        body: {
          tenantName: "First Co",
          tenantSlug: "first-co",
          adminEmail: "owner@first.test",
          adminPassword: "first-owner-pass",
          adminName: "Owner",
        },
      });
      expect(res.status, res.text).toBe(201);
      return { userId: res.body.user.id, token: res.body.token };
    },
    saml: async () => {
      await enableSso(w);
      const sp = spUrls(w.tenantA.slug);
      const started = await startLogin(sp.slug);
      const xml = signedResponse({
        acsUrl: sp.acsUrl,
        audience: sp.audience,
        inResponseTo: started.requestId,
        nameId: `sso-${crypto.randomUUID().slice(0, 8)}@example.test`,
      });
      const res = await postResponse(sp.slug, base64(xml), started.relayState);
      expect(res.status, res.text).toBe(302);
      // the built-in console's door (decisions.md "SAML back to the console"): a single-use code it spends for
      // a cookie session; FRONTEND_URL set elsewhere gets ?token= of a bearer session (test/sso/login.test.ts)
      const { b } = await consoleExchange(res.headers.get("location")!);
      await w.as("tenantAdmin").put("/v1/settings/sso", { enabled: false });
      return { cookie: [...b.cookies.values()][0]! };
    },
  };

  for (const method of SESSION_METHODS.filter((m) => m !== "saml")) {
    it(`${method}: a bearer session row whose id is the JWT's sid, and the token works`, async () => {
      const { userId, token, ssoTenantId } = (await signIns[method]()) as BearerSignIn;
      const row = await rowOf(await sidOf(token));
      expect(row).toMatchObject({
        userId,
        kind: "bearer",
        method,
        ssoTenantId: ssoTenantId ?? null,
        secretHash: null,
        endedAt: null,
      });
      expect(Date.parse(row!.expiresAt) - Date.parse(row!.createdAt)).toBe(8 * 3600 * 1000);
      expect((await request("GET", "/me", { token })).status).toBe(200);
    });
  }

  it("saml through the console: a cookie session of method saml naming the IdP's tenant, holding only the cookie's SHA-256", async () => {
    const { cookie } = (await signIns.saml()) as { cookie: string };
    const [row] = await control()
      .select()
      .from(sessions)
      .where(eq(sessions.secretHash, await sha256Hex(cookie)));
    expect(row).toMatchObject({ kind: "cookie", method: "saml", ssoTenantId: w.tenantA.id, endedAt: null });
  });

  it("the console's password sign-in: a cookie session whose row holds only the cookie's SHA-256", async () => {
    const p = await newTenantUser();
    const { value } = await pageSignIn(p.email);
    const [row] = await rowsOf(p.id).then((rows) => rows.filter((r) => r.kind === "cookie"));
    expect(row).toMatchObject({ userId: p.id, kind: "cookie", method: "password", secretHash: await sha256Hex(value) });
    expect(JSON.stringify(row)).not.toContain(value);
    expect(Date.parse(row!.expiresAt) - Date.parse(row!.createdAt)).toBe(30 * 86_400_000);
  });

  it("a token without a session id, or naming another user's session, is refused", async () => {
    const { SignJWT } = await import("jose");
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ ...claims, iss: env.JWT_ISSUER, aud: env.JWT_AUDIENCE, iat: now, exp: now + 600 })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .sign(new TextEncoder().encode(env.JWT_SECRET!));
    const viewer = w.users.viewer;
    expect((await request("GET", "/me", { token: await sign({ sub: viewer.id, sid: viewer.sessionId }) })).status).toBe(
      200,
    );
    expect((await request("GET", "/me", { token: await sign({ sub: viewer.id }) })).status).toBe(401);
    const other = w.users.manager.sessionId;
    expect((await request("GET", "/me", { token: await sign({ sub: viewer.id, sid: other }) })).status).toBe(401);
  });
});

describe("every ender ends the sessions it names", () => {
  /** Each reason of SESSION_END_REASONS through its real route; returns the sessions it must end and one it must spare. */
  const enders: Record<
    SessionEndReason,
    (p: Awaited<ReturnType<typeof newTenantUser>>) => Promise<{ ended: string[]; spared: string[] }>
  > = {
    logout: async (p) => {
      const other = await sessionFor(p.id);
      expect((await request("POST", "/auth/logout", { token: p.token })).status).toBe(200);
      return { ended: [p.sessionId], spared: [other.sessionId] };
    },
    logout_all: async (p) => {
      const other = await sessionFor(p.id);
      const res = await request("POST", "/auth/logout-all", { token: p.token });
      expect(res.body).toEqual({ ended: 3 });
      return { ended: [p.sessionId, other.sessionId], spared: [] };
    },
    password_reset: async (p) => {
      const res = await request("POST", "/auth/reset-password", {
        body: { token: await resetToken(p.email), password: "reset by the ender" },
      });
      return { ended: [p.sessionId], spared: [await sidOf(res.body.token)] };
    },
    password_changed: async (p) => {
      const res = await request("POST", "/me/password", {
        token: p.token,
        body: { currentPassword: TEST_PASSWORD, newPassword: "changed by the ender" },
      });
      expect(res.status, res.text).toBe(200);
      return { ended: [p.sessionId], spared: [await sidOf(res.body.token)] };
    },
    deactivated: async (p) => {
      expect((await w.as("tenantAdmin").delete(`/v1/users/${p.id}`)).status).toBe(204);
      return { ended: [p.sessionId], spared: [] };
    },
  };

  for (const reason of SESSION_END_REASONS) {
    it(`${reason}: the rows end with that reason, their tokens and the browser session stop at once`, async () => {
      const p = await newTenantUser();
      const browser = await pageSignIn(p.email);
      const cookieRow = (await rowsOf(p.id)).find((r) => r.kind === "cookie")!;
      const { ended, spared } = await enders[reason](p);
      const endsBrowser = reason !== "logout";
      for (const id of [...ended, ...(endsBrowser ? [cookieRow.id] : [])])
        expect(await rowOf(id), `${reason} ${id}`).toMatchObject({ endReason: reason, endedAt: expect.any(String) });
      for (const id of [...spared, ...(endsBrowser ? [] : [cookieRow.id])])
        expect(await rowOf(id), `${reason} spares ${id}`).toMatchObject({ endedAt: null });
      expect((await request("GET", "/me", { token: p.token })).status).toBe(401);
      expect(await pageSignedIn(browser.cookie)).toBe(!endsBrowser);
    });
  }
});

describe("revocation reaches every isolate within a minute (injected clock)", () => {
  it("an isolate that cached a session honours it at most PRINCIPAL_TTL_MS after it ended elsewhere", async () => {
    expect(PRINCIPAL_TTL_MS).toBeLessThanOrEqual(60_000);
    const p = await newTenantUser();
    const claims = { userId: p.id, sessionId: p.sessionId };
    const t0 = Date.now();
    expect((await resolveSessionPrincipal(control(), claims, undefined, t0)).principal).toMatchObject({
      userId: p.id,
      sessionId: p.sessionId,
      signIn: { method: "password" },
    });
    // another isolate ends it: this one's cache does not hear of it
    await control()
      .update(sessions)
      .set({ endedAt: new Date(t0).toISOString() })
      .where(eq(sessions.id, p.sessionId));
    expect((await resolveSessionPrincipal(control(), claims, undefined, t0 + 1_000)).principal).not.toBeNull();
    expect((await resolveSessionPrincipal(control(), claims, undefined, t0 + PRINCIPAL_TTL_MS)).principal).toBeNull();
  });

  it("a cached session stops at its absolute end", async () => {
    const p = await newTenantUser();
    const now = Date.now();
    const opened = await openSession(control(), { userId: p.id, kind: "bearer", method: "password" }, new Date(now));
    await opened.statement;
    const claims = { userId: p.id, sessionId: opened.id };
    const end = now + SESSION_LIFETIMES.bearer.absoluteSeconds * 1000;
    expect((await resolveSessionPrincipal(control(), claims, undefined, end - 1_000)).principal).not.toBeNull();
    expect((await resolveSessionPrincipal(control(), claims, undefined, end)).principal).toBeNull();
  });
});

describe("browser sessions: idle and absolute lifetimes (injected clock)", () => {
  const openCookie = async (userId: string, at: number) => {
    const opened = await openSession(control(), { userId, kind: "cookie", method: "password" }, new Date(at));
    await opened.statement;
    return opened;
  };
  const idle = SESSION_LIFETIMES.cookie.idleSeconds * 1000;

  it("ends after 12 idle hours; a request records activity at most every 5 minutes, which keeps it open", async () => {
    expect(idle).toBe(12 * 3600 * 1000);
    const p = await newTenantUser();
    const t0 = Date.now() - 2 * idle;
    const s = await openCookie(p.id, t0);
    expect(await resolveCookieSession(control(), s.secret!, t0 + idle - 1)).not.toBeNull();
    const touched = (await rowOf(s.id))!.lastSeenAt;
    expect(touched).toBe(new Date(t0 + idle - 1).toISOString());
    // within SESSION_TOUCH_MS of the last write nothing is written
    await resolveCookieSession(control(), s.secret!, t0 + idle - 1 + SESSION_TOUCH_MS - 1);
    expect((await rowOf(s.id))!.lastSeenAt).toBe(touched);
    expect(await resolveCookieSession(control(), s.secret!, t0 + 2 * idle - 2)).not.toBeNull();
    const idleSince = Date.parse((await rowOf(s.id))!.lastSeenAt);
    expect(await resolveCookieSession(control(), s.secret!, idleSince + idle)).toBeNull();
  });

  it("ends 30 days after sign-in whatever the activity; an unknown cookie opens nothing", async () => {
    const p = await newTenantUser();
    const t0 = Date.now() - 31 * 86_400_000;
    const s = await openCookie(p.id, t0);
    const end = t0 + 30 * 86_400_000;
    for (let at = t0; at < end; at += idle / 2)
      expect(await resolveCookieSession(control(), s.secret!, at), new Date(at).toISOString()).not.toBeNull();
    // seen a minute before the end: idle is not what ends it
    expect(await resolveCookieSession(control(), s.secret!, end - 60_000)).not.toBeNull();
    expect(await resolveCookieSession(control(), s.secret!, end)).toBeNull();
    expect(await resolveCookieSession(control(), "not-a-session-cookie", Date.now())).toBeNull();
  });
});

describe("the daily purge", () => {
  it(`deletes rows ${SESSION_ROW_RETENTION_DAYS} days past their absolute end, keeps the rest`, async () => {
    const p = await newTenantUser();
    const now = Date.now();
    const old = await openCookie(p.id, now - (30 + SESSION_ROW_RETENTION_DAYS + 1) * 86_400_000);
    const recent = await openCookie(p.id, now - (30 + SESSION_ROW_RETENTION_DAYS - 1) * 86_400_000);
    expect(await purgeSessions(control(), new Date(now))).toBeGreaterThanOrEqual(1);
    expect(await rowOf(old.id)).toBeUndefined();
    expect(await rowOf(recent.id)).toBeDefined();
    expect(await rowOf(p.sessionId)).toBeDefined();
  });

  async function openCookie(userId: string, at: number) {
    const opened = await openSession(control(), { userId, kind: "cookie", method: "password" }, new Date(at));
    await opened.statement;
    return opened;
  }
});

// The console's sessions are the one session model's (docs/sessions.md, docs/console.md, #45 item 1):
// sign-in lands on the home naming the tenant, with a cookie session row; sign-out ends that row, sign-out
// everywhere ends every session of the account; the own page changes the name and the password (which
// ends every other session); sign-in is throttled like POST /auth/login.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { sessions } from "../../src/db/schema";
import { LOGIN_FAILURE_WINDOW_SECONDS, LOGIN_LIMITS } from "../../src/modules/auth/throttle";
import { emailIdsTo, nextEmailTo } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { control, createWorld, seedUser, sessionFor, TEST_PASSWORD, type World } from "../helpers/seed";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const newManager = () =>
  seedUser({ grants: [{ role: "manager", scopeType: "tenant", scopeId: w.tenantA.id }], tenantId: w.tenantA.id });
const cookieRows = async (userId: string) =>
  (await control().select().from(sessions).where(eq(sessions.userId, userId))).filter((r) => r.kind === "cookie");

async function signedIn(email: string, password = TEST_PASSWORD) {
  const b = new ConsoleBrowser();
  const res = await b.signIn(email, password);
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  return b;
}

describe("console sessions", () => {
  it("password sign-in: an HttpOnly, SameSite=Lax cookie of a cookie session (method password), home names the tenant", async () => {
    const p = await newManager();
    const b = new ConsoleBrowser();
    await b.get("/");
    const res = await b.post("/app/sign-in", { email: p.email, password: TEST_PASSWORD }, { csrf: null });
    expect(res.status).toBe(303);
    const line = res.headers.getAll("set-cookie").find((l) => /^(__Host-)?session=/.test(l))!;
    expect(line).toMatch(/HttpOnly/i);
    expect(line).toMatch(/SameSite=Lax/i);
    expect(line).toMatch(/Path=\//);
    const home = await b.follow(res);
    expect(home.status).toBe(200);
    expect(textOf(home.text)).toContain(w.tenantA.name);
    const rows = await cookieRows(p.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ method: "password", endedAt: null });
  });

  it("sign out ends this session on the server: the old cookie opens nothing", async () => {
    const p = await newManager();
    const b = await signedIn(p.email);
    const stolen = new Map(b.cookies);
    await b.get("/app/me");
    const out = await b.post("/app/sign-out");
    expect(out.status).toBe(303);
    const [row] = await cookieRows(p.id);
    expect(row).toMatchObject({ endReason: "logout" });
    const replay = new ConsoleBrowser();
    for (const [k, v] of stolen) replay.cookies.set(k, v);
    const again = await replay.get("/app/me");
    expect(again.status).toBe(303);
    expect(again.location).toMatch(/^\/(\?|$)/);
  });

  it("sign out everywhere ends every session of the account: other browsers and API tokens", async () => {
    const p = await newManager();
    const other = await signedIn(p.email);
    const { token } = await sessionFor(p.id);
    expect((await request("GET", "/me", { token })).status).toBe(200);
    const b = await signedIn(p.email);
    await b.get("/app/me");
    expect(textOf((await b.get("/app/me")).text)).toContain("Sign out everywhere");
    const out = await b.post("/app/sign-out-everywhere");
    expect(out.status).toBe(303);
    expect((await other.get("/app/me")).status).toBe(303);
    expect((await b.get("/app/me")).status).toBe(303);
    expect((await request("GET", "/me", { token, unchecked: true })).status).toBe(401);
    expect((await cookieRows(p.id)).every((r) => r.endReason === "logout_all")).toBe(true);
  });

  it("the own page changes the name", async () => {
    const p = await newManager();
    const b = await signedIn(p.email);
    await b.get("/app/me");
    const saved = await b.post("/app/me/name", { name: "Renamed Person" });
    expect(saved.status).toBe(303);
    expect(textOf((await b.follow(saved)).text)).toContain("Renamed Person");
  });

  it("the own page changes the password: the current one is proved, other sessions end, this browser stays in", async () => {
    const p = await newManager();
    const other = await signedIn(p.email);
    const b = await signedIn(p.email);
    await b.get("/app/me");
    const wrong = await b.post("/app/me/password", {
      currentPassword: "not-the-password",
      newPassword: "a-new-long-password",
      confirm: "a-new-long-password",
    });
    expect(textOf((await b.follow(wrong)).text)).toContain("The current password is wrong.");
    const changed = await b.post("/app/me/password", {
      currentPassword: TEST_PASSWORD,
      newPassword: "a-new-long-password",
      confirm: "a-new-long-password",
    });
    expect(changed.status).toBe(303);
    const after = await b.follow(changed);
    expect(after.status).toBe(200);
    expect(textOf(after.text)).toContain("Your password is changed");
    expect((await other.get("/app/me")).status).toBe(303);
    const rows = await cookieRows(p.id);
    expect(rows.filter((r) => r.endedAt === null)).toHaveLength(1);
    expect(rows.filter((r) => r.endReason === "password_changed")).toHaveLength(2);
    expect((await new ConsoleBrowser().signIn(p.email, TEST_PASSWORD)).status).toBe(401);
    expect((await new ConsoleBrowser().signIn(p.email, "a-new-long-password")).status).toBe(303);
  });

  it("reset mail → new password → the home, signed in, every earlier session gone", async () => {
    const p = await newManager();
    const before = await signedIn(p.email);
    const { token } = await sessionFor(p.id);
    const seen = await emailIdsTo(p.email);
    const b = new ConsoleBrowser();
    await b.get("/app/forgot-password");
    await b.post("/app/forgot-password", { email: p.email }, { csrf: null });
    const link = new URL(
      /https?:\/\/\S*\/reset-password\?token=\S+/.exec((await nextEmailTo(p.email, seen)).text ?? "")![0],
    );
    expect((await b.get(link.pathname + link.search)).status).toBe(200);
    const done = await b.post(
      "/reset-password",
      { token: link.searchParams.get("token")!, password: "reset-long-password", confirm: "reset-long-password" },
      { csrf: null },
    );
    expect(done.status, done.text.slice(0, 300)).toBe(303);
    const home = await b.follow(done);
    expect(home.status).toBe(200);
    expect(textOf(home.text)).toContain(w.tenantA.name);
    expect((await before.get("/app/me")).status).toBe(303);
    expect((await request("GET", "/me", { token, unchecked: true })).status).toBe(401);
    const live = (await cookieRows(p.id)).filter((r) => r.endedAt === null);
    expect(live).toMatchObject([{ method: "reset" }]);
  });

  it("sign-in is throttled like POST /auth/login: 429 with Retry-After once the email is locked", async () => {
    const p = await newManager();
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`login:email:${p.email}`));
    await Promise.all(
      Array.from({ length: LOGIN_LIMITS.email.lockAfter }, () => stub.recordFailure(LOGIN_FAILURE_WINDOW_SECONDS)),
    );
    const b = new ConsoleBrowser();
    const res = await b.signIn(p.email);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(textOf(res.text)).toContain("Too many sign-in attempts");
    expect(await cookieRows(p.id)).toHaveLength(0);
  });
});

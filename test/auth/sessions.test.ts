// Sessions that end (issue #44, item 6): a password reset, a password change, a deactivation, sign-out
// and sign-out everywhere end the sessions they name, so the JWTs of those sessions stop working on
// REST, /me and MCP; OAuth grants and API keys are separate credentials and keep working, and the
// "your password was changed" mail names them. HTTP only: these cases ran against the code before the
// session model and failed there (docs/sessions.md).
import { beforeAll, describe, expect, it } from "vitest";
import { emailIdsTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, seedUser, TEST_PASSWORD, type World } from "../helpers/seed";
import { initializeBody, rawPost } from "../mcp/helpers";
import { authorizeWithConsent, MemoryOAuthClient } from "../oauth/helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

type Person = Awaited<ReturnType<typeof seedUser>>;

/** A tenant_admin of tenant A (so they can mint API keys), with the shared test password. */
const newPerson = () =>
  seedUser({ grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: w.tenantA.id }], tenantId: w.tenantA.id });

const login = async (email: string, password = TEST_PASSWORD) => {
  const res = await request("POST", "/auth/login", { body: { email, password } });
  expect(res.status, res.text).toBe(200);
  return res.body.token as string;
};

/** The status a token gets on REST, on /me and on MCP initialize. */
async function statuses(token: string) {
  const rest = await request("GET", "/v1/locations", { token, tenantId: w.tenantA.id });
  const me = await request("GET", "/me", { token });
  const mcp = await rawPost(initializeBody(), { authorization: `Bearer ${token}`, "x-tenant-id": w.tenantA.id });
  await mcp.body?.cancel();
  return { rest: rest.status, me: me.status, mcp: mcp.status };
}
const works = { rest: 200, me: 200, mcp: 200 };
const ended = { rest: 401, me: 401, mcp: 401 };

async function resetByMail(p: Person, password: string) {
  const seen = await emailIdsTo(p.email);
  await request("POST", "/auth/forgot-password", { body: { email: p.email } });
  const mail = await nextEmailTo(p.email, seen);
  const res = await request("POST", "/auth/reset-password", { body: { token: tokenIn(mail.text), password } });
  expect(res.status, res.text).toBe(200);
  return res;
}

describe("a password reset ends every earlier sign-in", () => {
  it("tokens from before the reset are 401 on REST, /me and MCP", async () => {
    const p = await newPerson();
    const first = await login(p.email);
    const second = await login(p.email);
    expect(await statuses(first)).toEqual(works);
    await resetByMail(p, "a new password after reset");
    for (const token of [p.token, first, second]) expect(await statuses(token)).toEqual(ended);
    expect(await statuses(await login(p.email, "a new password after reset"))).toEqual(works);
  });

  it("OAuth grants and API keys survive it; the password-changed mail lists them and where to revoke", async () => {
    const p = await newPerson();
    const key = await request("POST", "/v1/api-keys", {
      token: p.token,
      tenantId: w.tenantA.id,
      body: { name: "Zapier sync" },
    });
    expect(key.status).toBe(201);
    const app = new MemoryOAuthClient("Claude Desktop");
    const access = await authorizeWithConsent(app, "read:locations", { email: p.email, tenantId: w.tenantA.id });
    const seen = await emailIdsTo(p.email);
    await resetByMail(p, "reset keeps my apps");
    const keyStill = await request("GET", "/v1/locations", { token: key.body.key, tenantId: w.tenantA.id });
    expect(keyStill.status).toBe(200);
    const oauthStill = await rawPost(initializeBody(), { authorization: `Bearer ${access}` });
    expect(oauthStill.status).toBe(200);
    await oauthStill.body?.cancel();
    // the reset mail came first; the next one tells what happened and what still works
    const mails = [await nextEmailTo(p.email, seen)];
    mails.push(await nextEmailTo(p.email, new Set([...seen, mails[0]!.id])));
    const changed = mails.find((m) => m.subject === "Your password was changed");
    expect(changed, mails.map((m) => m.subject).join(", ")).toBeDefined();
    expect(changed!.text).toContain("Every session signed in before then is signed out");
    expect(changed!.text).toContain(`- Claude Desktop (for ${w.tenantA.name})`);
    expect(changed!.text).toContain("/app/connected-apps");
    expect(changed!.text).toContain(`"Zapier sync" (${key.body.prefix}…, id ${key.body.id}) in ${w.tenantA.name}`);
    expect(changed!.text).toContain("DELETE /v1/api-keys/{id}");
  });
});

describe("POST /me/password", () => {
  it("ends every earlier sign-in, the caller's included, and answers with a new working token", async () => {
    const p = await newPerson();
    const other = await login(p.email);
    const res = await request("POST", "/me/password", {
      token: p.token,
      body: { currentPassword: TEST_PASSWORD, newPassword: "changed on purpose" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.user).toMatchObject({ id: p.id, email: p.email });
    for (const token of [p.token, other]) expect(await statuses(token)).toEqual(ended);
    expect(await statuses(res.body.token)).toEqual(works);
    expect(await statuses(await login(p.email, "changed on purpose"))).toEqual(works);
  });

  it("refuses a wrong current password with 403 and changes nothing", async () => {
    const p = await newPerson();
    const res = await request("POST", "/me/password", {
      token: p.token,
      body: { currentPassword: "not my password", newPassword: "changed on purpose" },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "FORBIDDEN", details: { reason: "current_password_incorrect" } });
    expect(await statuses(p.token)).toEqual(works);
    await login(p.email);
  });
});

describe("sign-out", () => {
  it("POST /auth/logout ends this token only", async () => {
    const p = await newPerson();
    const other = await login(p.email);
    const res = await request("POST", "/auth/logout", { token: p.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ended: 1 });
    expect(await statuses(p.token)).toEqual(ended);
    expect(await statuses(other)).toEqual(works);
  });

  it("POST /auth/logout-all ends every token of the account", async () => {
    const p = await newPerson();
    const other = await login(p.email);
    const res = await request("POST", "/auth/logout-all", { token: other });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ended: 2 });
    for (const token of [p.token, other]) expect(await statuses(token)).toEqual(ended);
    expect(await statuses(await login(p.email))).toEqual(works);
  });

  it("needs a session JWT: without a credential or with an API key it is 401", async () => {
    expect((await request("POST", "/auth/logout")).status).toBe(401);
    const key = await w.as("tenantAdmin").post("/v1/api-keys", { name: "not a session" });
    expect((await request("POST", "/auth/logout-all", { token: key.body.key })).status).toBe(401);
  });
});

describe("deactivation", () => {
  it("ends the person's sessions; reactivating does not bring the old tokens back", async () => {
    const p = await seedUser({
      grants: [{ role: "tenant_user", scopeType: "tenant", scopeId: w.tenantA.id }],
      tenantId: w.tenantA.id,
    });
    const other = await login(p.email);
    expect((await w.as("tenantAdmin").patch(`/v1/users/${p.id}`, { isActive: false })).status).toBe(200);
    expect((await w.as("tenantAdmin").patch(`/v1/users/${p.id}`, { isActive: true })).status).toBe(200);
    for (const token of [p.token, other]) expect(await statuses(token)).toEqual(ended);
    expect(await statuses(await login(p.email))).toEqual({ rest: 200, me: 200, mcp: 200 });
  });
});

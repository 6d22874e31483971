// The console's account pages over HTTP (#46 items 4, 5, 6): Team, API keys, Audit log. Each page shows the
// tenant's data; each form changes what its REST twin changes (read back over REST); a post without the
// session's CSRF token changes nothing; another tenant's ids are 404. Who sees which page: matrix.test.ts.
import { and, eq } from "drizzle-orm";
import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { emailIdsTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { client, request } from "../helpers/http";
import { createWorld, db, seedUser, type World } from "../helpers/seed";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
let admin: ConsoleBrowser;
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;
const rest = () => w.as("tenantAdmin");

async function signedIn(name: keyof World["users"]) {
  const b = new ConsoleBrowser();
  expect((await b.signIn(w.users[name].email)).status).toBe(303);
  return b;
}

const restUser = async (id: string) => (await rest().get(`/v1/users/${id}`)).body;

beforeAll(async () => {
  w = await createWorld({ shardA: 0, shardB: 1 });
  admin = await signedIn("tenantAdmin");
}, 60_000);

describe("Team", () => {
  it("lists the tenant's people with their roles, read-only below tenant_admin", async () => {
    const page = await admin.get(t("/team"));
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    for (const who of ["tenantAdmin", "manager", "tenantUser", "viewer"] as const)
      expect(text).toContain(w.users[who].email);
    expect(text).not.toContain(w.users.tenantBAdmin.email);
    expect(page.text).toContain("<caption>People (4)</caption>");
    expect(page.text).toContain(`action="${t("/team/invite")}"`);
    expect(page.text).toContain(`${t(`/team/${w.users.manager.id}/roles`)}`);
    // the admin's own row offers nothing (the service refuses changing oneself)
    expect(page.text).not.toContain(`/team/${w.users.tenantAdmin.id}/`);

    const viewer = await signedIn("viewer");
    const read = await viewer.get(t("/team"));
    expect(read.status).toBe(200);
    expect(textOf(read.text)).toContain(w.users.manager.email);
    expect(read.text).not.toContain("/team/invite");
    expect(read.text).not.toContain("/roles");
    const forged = await viewer.follow(
      await viewer.post(t("/team/invite"), { email: "x@example.test", role: "viewer" }),
    );
    expect(textOf(forged.text)).toContain("Your role here (Viewer) does not allow this.");
    expect((await rest().get("/v1/users?limit=200")).body.data.map((u: { email: string }) => u.email)).not.toContain(
      "x@example.test",
    );
  });

  it("invites, resends and revokes: the invite mail, the new link, then nothing", async () => {
    const email = "console.invitee@example.test";
    const seen = await emailIdsTo(email);
    const invited = await admin.submit(t("/team/invite"), { email, name: "", role: "manager" });
    expect(invited).toContain(`Invite sent to ${email} as Manager.`);
    const listed = (await rest().get("/v1/users?limit=200")).body.data.find(
      (u: { email: string }) => u.email === email,
    );
    expect(listed).toMatchObject({ roles: ["manager"], invitePending: true, isActive: true });
    const first = tokenIn((await nextEmailTo(email, seen)).text);
    expect(invited).toMatch(/Pending invites \(1\) .*console\.invitee@example\.test Manager/);

    const seen2 = await emailIdsTo(email);
    expect(await admin.submit(t(`/team/${listed.id}/invite/resend`))).toContain(
      `A new invite is on its way to ${email}`,
    );
    const second = tokenIn((await nextEmailTo(email, seen2)).text);
    expect(second).not.toBe(first);

    const revoked = await admin.submit(t(`/team/${listed.id}/invite/revoke`));
    expect(revoked).toContain(`The invite to ${email} is revoked`);
    expect(revoked).toContain("Pending invites (0)");
    expect((await rest().get(`/v1/users/${listed.id}`)).status).toBe(404);
    const setup = await request("POST", "/auth/setup-password", {
      body: { inviteToken: second, name: "Too Late", password: "a-new-password" },
    });
    expect(setup.body.code).toBe("INVALID_TOKEN");
  });

  it("changes a role, deactivates and reactivates, as REST then reads", async () => {
    const person = await seedUser({
      grants: [{ role: "viewer", scopeType: "tenant", scopeId: w.tenantA.id }],
      tenantId: w.tenantA.id,
    });
    expect(await admin.submit(t(`/team/${person.id}/roles`), { role: "manager" })).toContain("is now Manager.");
    expect(await restUser(person.id)).toMatchObject({ roles: ["manager"], isActive: true });

    const off = await admin.submit(t(`/team/${person.id}/deactivate`));
    expect(off).toContain("is deactivated: they cannot sign in");
    expect(await restUser(person.id)).toMatchObject({ isActive: false });
    expect((await client(person.token, w.tenantA.id).get("/v1/users")).status).toBe(401);
    expect((await admin.get(t("/team"))).text).toContain(t(`/team/${person.id}/reactivate`));

    expect(await admin.submit(t(`/team/${person.id}/reactivate`))).toContain("can sign in again.");
    expect(await restUser(person.id)).toMatchObject({ isActive: true, roles: ["manager"] });
  });

  it("a person with roles beyond this tenant only leaves the team; the services' refusals are sentences", async () => {
    const shared = await seedUser({
      grants: [
        { role: "tenant_user", scopeType: "tenant", scopeId: w.tenantA.id },
        { role: "viewer", scopeType: "tenant", scopeId: w.tenantB.id },
      ],
      tenantId: w.tenantB.id,
    });
    expect(await admin.submit(t(`/team/${shared.id}/deactivate`))).toContain(
      "no longer has a role here. Their account stays",
    );
    expect((await rest().get(`/v1/users/${shared.id}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").get(`/v1/users/${shared.id}`)).body).toMatchObject({ isActive: true });

    // the service's own refusals (users/authority.ts and the invite states), worded for a person
    expect(await admin.submit(t(`/team/${w.users.tenantAdmin.id}/roles`), { role: "viewer" })).toContain(
      "You cannot change your own role or deactivate yourself",
    );
    expect(await admin.submit(t(`/team/${w.users.manager.id}/invite/resend`))).toContain(
      "This person has already accepted the invite.",
    );
    const beyond = await seedUser({
      grants: [
        { role: "viewer", scopeType: "tenant", scopeId: w.tenantA.id },
        { role: "viewer", scopeType: "tenant", scopeId: w.tenantB.id },
      ],
      tenantId: w.tenantA.id,
      isActive: false,
    });
    expect(await admin.submit(t(`/team/${beyond.id}/reactivate`))).toContain(
      "also has roles outside this business, so their account is not this team's to change",
    );
    expect(await restUser(beyond.id)).toMatchObject({ isActive: false });
    expect(await restUser(w.users.tenantAdmin.id)).toMatchObject({ roles: ["tenant_admin"] });
  });

  it("another tenant's person is 404 on every form; a post without the CSRF token changes nothing", async () => {
    const other = w.users.tenantBAdmin.id;
    for (const form of ["roles", "deactivate", "reactivate", "invite/resend", "invite/revoke"]) {
      const res = await admin.post(t(`/team/${other}/${form}`), { role: "viewer" });
      expect(res.status, form).toBe(404);
    }
    expect((await w.as("tenantBAdmin").get(`/v1/users/${other}`)).body).toMatchObject({
      isActive: true,
      roles: ["tenant_admin"],
    });
    const forged = await admin.post(t(`/team/${w.users.viewer.id}/roles`), { role: "tenant_admin" }, { csrf: "" });
    expect(forged.status).toBe(403);
    expect(await restUser(w.users.viewer.id)).toMatchObject({ roles: ["viewer"] });
  });
});

describe("API keys", () => {
  it("mints with the chosen scopes, shows the raw key once, lists its last use, revokes it", async () => {
    const minted = await admin.post(t("/api-keys"), { name: "Zapier", scopes: ["read:reviews", "write:inbox"] });
    expect(minted.status).toBe(200);
    expect(minted.headers.get("cache-control")).toBe("no-store");
    const key = /id="new-key"[^>]*value="(rk_live_[^"]+)"/.exec(minted.text)?.[1] ?? "";
    expect(key).toMatch(/^rk_live_/);
    expect(minted.text).toMatch(/<input[^>]*id="new-key"[^>]*readonly/);
    expect(minted.text).toContain('data-copy="new-key"');
    expect(textOf(minted.text)).toContain("it is shown only this once");
    const [listed] = (await rest().get("/v1/api-keys")).body.data;
    expect(listed).toMatchObject({ name: "Zapier", scopes: ["read:reviews", "write:inbox"], lastUsedAt: null });

    // shown once: the list page never carries it again
    const again = await admin.get(t("/api-keys"));
    expect(again.text).not.toContain(key);
    expect(again.text).toContain(`${key.slice(0, 16)}…`);
    // expires never, last used never
    expect(textOf(again.text)).toMatch(/Zapier rk_live_\S+… read:reviews write:inbox .+ never never Revoke/);

    // used once, by the key's own holder
    expect((await client(key, w.tenantA.id).get("/v1/reviews")).status).toBe(200);
    expect((await rest().get("/v1/api-keys")).body.data[0].lastUsedAt).not.toBeNull();
    expect(textOf((await admin.get(t("/api-keys"))).text)).toMatch(/Zapier .+ never [A-Z][a-z]{2} \d+, \d{4}.* Revoke/);

    const revoked = await admin.submit(t(`/api-keys/${listed.id}/revoke`));
    expect(revoked).toContain("The key is revoked");
    expect(revoked).toContain("No API key yet.");
    expect((await rest().get("/v1/api-keys")).body.data).toEqual([]);
    expect((await client(key, w.tenantA.id).get("/v1/reviews")).status).toBe(401);
  });

  it("refuses a key without scopes or with a past expiry, as the form's sentence", async () => {
    expect(await admin.submit(t("/api-keys"), { name: "Nothing" })).toContain(
      "Choose at least one thing the key may do.",
    );
    expect(
      await admin.submit(t("/api-keys"), { name: "Old", scopes: "read:reviews", expires: "2001-01-01" }),
    ).toContain("Please check the form: expiresAt: Must be in the future.");
    expect((await rest().get("/v1/api-keys")).body.data).toEqual([]);
  });

  it("another tenant's key is 404; a post without the CSRF token mints nothing", async () => {
    const keyB = (await w.as("tenantBAdmin").post("/v1/api-keys", { name: "B's" })).body;
    expect((await admin.post(t(`/api-keys/${keyB.id}/revoke`))).status).toBe(404);
    expect((await w.as("tenantBAdmin").get("/v1/api-keys")).body.data.map((k: { id: string }) => k.id)).toEqual([
      keyB.id,
    ]);
    expect((await admin.get(t("/api-keys"))).text).not.toContain("B&#39;s");
    const forged = await admin.post(t("/api-keys"), { name: "Forged", scopes: "read:reviews" }, { csrf: "" });
    expect(forged.status).toBe(403);
    expect(forged.text).not.toContain("rk_live_");
    expect((await rest().get("/v1/api-keys")).body.data).toEqual([]);
  });
});

describe("Audit log", () => {
  const day = (iso: string) => iso.slice(0, 10);
  const synthetic = (o: Partial<typeof auditEvents.$inferInsert> & { occurredAt: string }) => ({
    id: newId(),
    tenantId: w.tenantA.id,
    actorId: w.users.manager.id,
    actorType: "user" as const,
    action: "console.synthetic",
    resourceType: "thing",
    resourceId: "t-1",
    previousState: null,
    nextState: { name: '=HYPERLINK("http://evil.test","x")', note: 'said "hi", then\r\nleft' },
    metadata: null,
    ipAddress: null,
    userAgent: null,
    ...o,
  });
  const jan2 = "2024-01-02T10:00:00.000Z";
  const jan3 = "2024-01-03T23:59:00.000Z";
  const jan4 = "2024-01-04T00:00:00.000Z";

  beforeAll(async () => {
    await db()
      .insert(auditEvents)
      .values([
        synthetic({ occurredAt: jan2 }),
        synthetic({ occurredAt: jan3, resourceId: "-t-2" }),
        synthetic({ occurredAt: jan4, actorId: w.users.tenantAdmin.id }),
        synthetic({ occurredAt: jan3, action: "console.other" }),
      ]);
    await w.as("tenantBAdmin").post("/v1/regions", { name: "Region of tenant B" });
  });

  it("shows the tenant's events, filtered by actor, action, target and date as REST filters them", async () => {
    const all = await admin.get(t("/audit"));
    expect(all.status).toBe(200);
    const text = textOf(all.text);
    expect(text).toContain("console.synthetic");
    expect(text).not.toContain("region.created");
    const q = `?action=console.synthetic&actorId=${w.users.manager.id}&from=${day(jan3)}&to=${day(jan3)}`;
    const page = textOf((await admin.get(t(`/audit${q}`))).text);
    expect(page).toContain("1 event matches");
    expect(page).toContain("-t-2");
    expect(page).toContain("Test User");
    const target = textOf((await admin.get(t("/audit?resourceType=thing&resourceId=t-1"))).text);
    expect(target).toContain("3 events match");
  });

  it("exports exactly the filtered rows as CSV: a header row, RFC 4180, formula-safe", async () => {
    const q = `?action=console.synthetic&from=${day(jan2)}&to=${day(jan3)}`;
    const res = await admin.get(t(`/audit/export${q}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-events-[\d-]+\.csv"$/);
    expect(res.text.split("\r\n")[0]).toBe(
      "id,occurredAt,tenantId,action,resourceType,resourceId,actorType,actorId,ipAddress,userAgent,previousState,nextState",
    );
    const rows = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true }).data;
    const restRows = (
      await rest().get(
        `/v1/audit-events?action=console.synthetic&from=${encodeURIComponent(`${day(jan2)}T00:00:00Z`)}&to=${encodeURIComponent(jan4)}`,
      )
    ).body.data as { id: string }[];
    expect(rows.map((r) => r.id)).toEqual(restRows.map((r) => r.id));
    expect(rows.map((r) => r.occurredAt)).toEqual([jan3, jan2]);
    expect(rows[0]!.resourceId).toBe("'-t-2");
    expect(JSON.parse(rows[1]!.nextState!)).toEqual({
      name: '=HYPERLINK("http://evil.test","x")',
      note: 'said "hi", then\r\nleft',
    });
    expect(res.text).not.toContain("Region of tenant B");
    // the page's export link carries the page's filters
    expect((await admin.get(t(`/audit${q}`))).text).toContain(
      `href="${t(`/audit/export${q.replace(/&/g, "&amp;")}`)}"`,
    );
  });

  it("a malformed date is REST's 400; other roles get REST's refusal", async () => {
    const bad = await admin.get(t("/audit?from=2024-13-45"));
    expect(bad.status).toBe(400);
    expect(textOf(bad.text)).toContain("Please check the form: from:");
    const manager = await signedIn("manager");
    for (const path of [t("/audit"), t("/audit/export"), t("/api-keys")]) {
      const page = await manager.get(path);
      expect(page.status, path).toBe(403);
      expect(textOf(page.text)).toContain("Your role here (Manager) does not allow this.");
      expect(page.text).not.toContain("console.synthetic");
    }
    // the Settings page offers a manager the team, and names the admin's pages without linking them
    const nav = (await manager.get(t("/settings"))).text;
    expect(nav).toContain(`href="${t("/team")}"`);
    expect(nav).not.toContain(`href="${t("/audit")}"`);
    expect(nav).not.toContain(`href="${t("/api-keys")}"`);
    expect(textOf(nav)).toMatch(/Also here, for other roles: .*API keys \(Admin\); Audit log \(Admin\)/);
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "console.synthetic")));
    expect(rows).toHaveLength(3);
  });
});

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/env";
import { latestEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";

/** D1 sessions on the control database (docs/scaling.md, "Read replicas"). */
const BOOKMARK = /^[0-9a-f]+(-[0-9a-f]+)+$/i;
let w: World;
beforeAll(async () => {
  w = await createWorld({ shardA: 1, shardB: 0 });
});

describe("control-plane routes read and write through a D1 session", () => {
  it("answers /admin with the control database's bookmark and reads the client's own write when it sends it back", async () => {
    const admin = w.as("platformAdmin");
    const slug = `ryw-${Date.now()}`;
    const created = await admin.post("/admin/agencies", { name: "Read Your Writes", slug });
    expect(created.status).toBe(201);
    const bookmark = created.headers.get("x-d1-control-bookmark");
    expect(bookmark).toMatch(BOOKMARK);
    // no tenant shard was opened in a session: no shard bookmark
    expect(created.headers.get("x-d1-bookmark")).toBeNull();

    const list = await admin.get("/admin/agencies?limit=200", { "x-d1-control-bookmark": bookmark! });
    expect(list.status).toBe(200);
    expect(list.body.data.find((a: { slug: string }) => a.slug === slug)).toMatchObject({
      id: created.body.id,
      name: "Read Your Writes",
    });
    expect(list.headers.get("x-d1-control-bookmark")! >= bookmark!).toBe(true);
  });

  it("answers /me and /agency with it too", async () => {
    const me = await w.as("viewer").get("/me");
    expect([me.status, me.body.id]).toEqual([200, w.users.viewer.id]);
    expect(me.headers.get("x-d1-control-bookmark")).toMatch(BOOKMARK);
    const tenants = await w.as("agencyAdmin").get("/agency/tenants");
    expect(tenants.status).toBe(200);
    expect(tenants.body.data.map((t: { id: string }) => t.id)).toEqual([w.tenantA.id]);
    expect(tenants.headers.get("x-d1-control-bookmark")).toMatch(BOOKMARK);
  });

  it("/auth answers with it: a user accepting an invite sends it back to /me and reads the new account", async () => {
    const email = `ryw-invitee-${Date.now()}@example.test`;
    expect(
      (await w.as("tenantAdmin").post("/v1/users/invite", { email, name: "Invitee", role: "viewer" })).status,
    ).toBe(201);
    const inviteToken = tokenIn((await latestEmailTo(email))!.text);
    const setup = await request("POST", "/auth/setup-password", {
      body: { inviteToken, name: "Accepted Invitee", password: "accepted-pass-1" },
    });
    expect(setup.status).toBe(200);
    const bookmark = setup.headers.get("x-d1-control-bookmark");
    expect(bookmark).toMatch(BOOKMARK);

    const me = await request("GET", "/me", {
      token: setup.body.token,
      tenantId: w.tenantA.id,
      headers: { "x-d1-control-bookmark": bookmark! },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: setup.body.user.id,
      email,
      name: "Accepted Invitee",
      tenantAccess: { tenantId: w.tenantA.id, role: "viewer" },
    });
    expect(me.headers.get("x-d1-control-bookmark")! >= bookmark!).toBe(true);
    const login = await request("POST", "/auth/login", { body: { email, password: "accepted-pass-1" } });
    expect(login.status).toBe(200);
    expect(login.headers.get("x-d1-control-bookmark")).toMatch(BOOKMARK);
  });

  it("a /v1 write to control rows of a shard-1 tenant carries one bookmark per database; sending both back reads the write", async () => {
    const api = w.as("tenantAdmin");
    const renamed = await api.patch(`/v1/users/${w.users.viewer.id}`, { name: "Renamed Viewer" });
    expect(renamed.status).toBe(200);
    const control = renamed.headers.get("x-d1-control-bookmark");
    const shard = renamed.headers.get("x-d1-bookmark");
    expect(control).toMatch(BOOKMARK);
    expect(shard).toMatch(BOOKMARK);
    // two databases: shard 1 is not the control database, so the bookmarks are not the same
    expect(control).not.toBe(shard);

    const read = await api.get(`/v1/users/${w.users.viewer.id}`, {
      "x-d1-control-bookmark": control!,
      "x-d1-bookmark": shard!,
    });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe("Renamed Viewer");
    expect(read.headers.get("x-d1-control-bookmark")! >= control!).toBe(true);
    // the audit row of that change is on the shard, readable in the shard's session
    const audit = await api.get(`/v1/audit-events?resourceId=${w.users.viewer.id}`, {
      "x-d1-bookmark": read.headers.get("x-d1-bookmark")!,
    });
    expect(audit.body.data.map((a: { action: string }) => a.action)).toContain("user.updated");
  });
});

describe("session constraints", () => {
  /** The env with the control database and shard 1 recording every withSession constraint. */
  function recordingEnv() {
    const calls: { db: string; constraint: string | undefined }[] = [];
    const record = (name: string, real: D1Database): D1Database =>
      new Proxy(real, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target);
          if (prop === "withSession")
            return (constraint?: string) => {
              calls.push({ db: name, constraint });
              return target.withSession(constraint);
            };
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const e = {
      ...(env as unknown as Env),
      DB: record("control", env.DB),
      SHARD_1: record("shard1", (env as unknown as { SHARD_1: D1Database }).SHARD_1),
    };
    return { env: e as Env, calls };
  }
  const app = createApp();
  async function send(
    method: string,
    path: string,
    o: { token: string; tenantId?: string; headers?: Record<string, string>; body?: unknown },
  ) {
    const rec = recordingEnv();
    const headers: Record<string, string> = {
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
      ...o.headers,
    };
    if (o.tenantId) headers["x-tenant-id"] = o.tenantId;
    if (o.body) headers["content-type"] = "application/json";
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`http://localhost:8787${path}`, {
        method,
        headers,
        body: o.body ? JSON.stringify(o.body) : undefined,
      }),
      rec.env,
      ctx,
    );
    await res.text();
    await waitOnExecutionContext(ctx);
    return { status: res.status, headers: res.headers, calls: rec.calls };
  }

  it("reads start first-unconstrained, writes first-primary, a valid bookmark anchors a read and a malformed one is ignored", async () => {
    const admin = w.users.platformAdmin.token;
    const read = await send("GET", "/admin/agencies", { token: admin });
    expect([read.status, read.calls]).toEqual([200, [{ db: "control", constraint: "first-unconstrained" }]]);
    const write = await send("POST", "/admin/agencies", {
      token: admin,
      body: { name: "Primary", slug: `primary-${Date.now()}` },
    });
    expect([write.status, write.calls]).toEqual([201, [{ db: "control", constraint: "first-primary" }]]);
    const bookmark = write.headers.get("x-d1-control-bookmark")!;
    const anchored = await send("GET", "/me", { token: admin, headers: { "x-d1-control-bookmark": bookmark } });
    expect([anchored.status, anchored.calls]).toEqual([200, [{ db: "control", constraint: bookmark }]]);
    const writeWithBookmark = await send("POST", "/admin/agencies", {
      token: admin,
      headers: { "x-d1-control-bookmark": bookmark },
      body: { name: "Primary again", slug: `primary2-${Date.now()}` },
    });
    expect([writeWithBookmark.status, writeWithBookmark.calls]).toEqual([
      201,
      [{ db: "control", constraint: "first-primary" }],
    ]);
    const bad = await send("GET", "/me", {
      token: admin,
      headers: { "x-d1-control-bookmark": "'; drop table users; --" },
    });
    expect([bad.status, bad.calls]).toEqual([200, [{ db: "control", constraint: "first-unconstrained" }]]);
  });

  it("/auth writes start first-primary and their bookmark anchors the next /me read", async () => {
    const email = `auth-session-${Date.now()}@example.test`;
    expect((await w.as("tenantAdmin").post("/v1/users/invite", { email, role: "viewer" })).status).toBe(201);
    const inviteToken = tokenIn((await latestEmailTo(email))!.text);
    const setup = await send("POST", "/auth/setup-password", {
      token: "",
      body: { inviteToken, name: "Session", password: "session-pass-1" },
    });
    expect([setup.status, setup.calls]).toEqual([200, [{ db: "control", constraint: "first-primary" }]]);
    const bookmark = setup.headers.get("x-d1-control-bookmark")!;
    expect(bookmark).toMatch(BOOKMARK);
    const login = await send("POST", "/auth/login", { token: "", body: { email, password: "session-pass-1" } });
    expect([login.status, login.calls]).toEqual([200, [{ db: "control", constraint: "first-primary" }]]);
    const anchored = await send("GET", "/me", {
      token: w.users.viewer.token,
      headers: { "x-d1-control-bookmark": bookmark },
    });
    expect([anchored.status, anchored.calls]).toEqual([200, [{ db: "control", constraint: bookmark }]]);
  });

  it("a /v1 request of a shard-1 tenant opens one session on the control database and one on shard 1, each anchored at its own bookmark", async () => {
    const token = w.users.tenantAdmin.token;
    const read = await send("GET", "/v1/users", { token, tenantId: w.tenantA.id });
    expect([read.status, read.calls]).toEqual([
      200,
      [
        { db: "control", constraint: "first-unconstrained" },
        { db: "shard1", constraint: "first-unconstrained" },
      ],
    ]);
    const control = read.headers.get("x-d1-control-bookmark")!;
    expect(control).toMatch(BOOKMARK);
    // users and grants are control rows: the shard's session ran no query, so it has no bookmark to send
    expect(read.headers.get("x-d1-bookmark")).toBeNull();
    const shard = (await send("GET", "/v1/locations", { token, tenantId: w.tenantA.id })).headers.get("x-d1-bookmark")!;
    expect(shard).toMatch(BOOKMARK);
    const headers = { "x-d1-control-bookmark": control, "x-d1-bookmark": shard };
    const anchored = await send("GET", "/v1/locations", { token, tenantId: w.tenantA.id, headers });
    expect([anchored.status, anchored.calls]).toEqual([
      200,
      [
        { db: "control", constraint: control },
        { db: "shard1", constraint: shard },
      ],
    ]);
    // a write starts at the primary of both databases even with bookmarks: the primary is at least as
    // recent as any bookmark, and the move fence and the write's checks must read the latest rows
    const write = await send("POST", "/v1/locations", {
      token,
      tenantId: w.tenantA.id,
      headers,
      body: {
        name: "Anchored",
        address: "1 Main St",
        city: "Springfield",
        state: "IL",
        zip: "62701",
        country: "US",
        brandId: w.tenantA.brandId,
      },
    });
    expect([write.status, write.calls]).toEqual([
      201,
      [
        { db: "control", constraint: "first-primary" },
        { db: "shard1", constraint: "first-primary" },
      ],
    ]);
  });
});

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import type { McpSessions } from "../../src/durable/mcp-sessions";
import { DEFAULT_LIMITS } from "../../src/modules/mcp/config";
import { createWorld, db, type World } from "../helpers/seed";
import { BASE, connect, fetchWithEnv, initializeBody, mintTestKey, rawPost, workerFetch } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const call = (sessionId: string, token: string, fetcher: typeof workerFetch, id: number, name = "location.list") =>
  rawPost(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { limit: 1 } } },
    { authorization: `Bearer ${token}`, "mcp-session-id": sessionId },
    fetcher,
  );

describe("request rate per tenant", () => {
  it("the limit+1st request in the window is 429 with Retry-After and RateLimit headers; other tenants are unaffected", async () => {
    // the real Durable Object with the limit lowered to 30 (the default 1,000 is checked below)
    const limited = fetchWithEnv({ MCP_RATE_LIMIT: "30" });
    const keyA = mintTestKey(w.tenantA.id, ["read:locations"]);
    const init = await rawPost(initializeBody(), { authorization: `Bearer ${keyA.token}` }, limited);
    const sessionId = init.headers.get("mcp-session-id")!;
    expect(init.headers.get("ratelimit-policy")).toBe('"mcp";q=30;w=900');
    for (let i = 2; i <= 30; i++) {
      const res = await call(sessionId, keyA.token, limited, i);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit")).toMatch(new RegExp(`^"mcp";r=${30 - i};t=\\d+$`));
    }
    const over = await call(sessionId, keyA.token, limited, 31, "location.finder");
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(over.headers.get("retry-after"))).toBeLessThanOrEqual(900);
    expect(over.headers.get("ratelimit")).toMatch(/^"mcp";r=0;t=\d+$/);
    expect(await over.json()).toMatchObject({ code: "RATE_LIMITED", details: { limit: 30, windowSeconds: 900 } });

    // a new session of the same tenant is throttled too: the counter is the tenant's
    const again = await rawPost(initializeBody(), { authorization: `Bearer ${keyA.token}` }, limited);
    expect(again.status).toBe(429);

    // tenant B keeps its own budget
    const keyB = mintTestKey(w.tenantB.id, ["read:locations"]);
    const b = await rawPost(initializeBody(), { authorization: `Bearer ${keyB.token}` }, limited);
    expect(b.status).toBe(200);

    // the throttled tool call is audited
    const row = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, keyA.keyId), eq(auditEvents.resourceId, "location.finder")))
      .get();
    expect(row?.metadata).toMatchObject({ outcome: "throttled", tool: "location.finder" });
  });

  it("the default is 1,000 requests per 15 minutes: the 1,001st is refused by the Durable Object", async () => {
    expect(DEFAULT_LIMITS).toMatchObject({
      rateLimit: 1000,
      windowSeconds: 900,
      maxSessions: 25,
      toolTimeoutMs: 60_000,
      maxResultBytes: 10 * 1024 * 1024,
    });
    const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName("rate-probe-tenant"));
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const results = await runInDurableObject(stub, async (instance: McpSessions) => {
      const out: boolean[] = [];
      for (let i = 0; i < 1001; i++) out.push((await instance.hit(DEFAULT_LIMITS, now + i)).allowed);
      return out;
    });
    expect(results.slice(0, 1000).every(Boolean)).toBe(true);
    expect(results[1000]).toBe(false);
    // a new window starts fresh
    expect(await stub.hit(DEFAULT_LIMITS, now + 900_000)).toMatchObject({ allowed: true });
  });

  it("unauthenticated requests count against the caller's IP", async () => {
    const limited = fetchWithEnv({ MCP_RATE_LIMIT: "3" });
    const headers = { "cf-connecting-ip": "198.51.100.77" };
    for (let i = 0; i < 3; i++) expect((await rawPost(initializeBody(), headers, limited)).status).toBe(401);
    const over = await rawPost(initializeBody(), headers, limited);
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBeTruthy();
    expect((await rawPost(initializeBody(), { "cf-connecting-ip": "198.51.100.78" }, limited)).status).toBe(401);
  });
});

describe("concurrent sessions per tenant", () => {
  it("the 26th initialize is 429 until a session ends", async () => {
    const tenant = w.tenantA.id;
    const key = mintTestKey(tenant, ["read:locations"]);
    const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(tenant));
    const already = await stub.liveCount(DEFAULT_LIMITS.idleTtlMs);
    const sessions: string[] = [];
    for (let i = already; i < 25; i++) {
      const res = await rawPost(initializeBody(), { authorization: `Bearer ${key.token}` });
      expect(res.status).toBe(200);
      sessions.push(res.headers.get("mcp-session-id")!);
    }
    const refused = await rawPost(initializeBody(), { authorization: `Bearer ${key.token}` });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(((await refused.json()) as any).error).toContain("25 concurrent MCP sessions");

    // the SDK client sees the same refusal
    await expect(connect({ token: key.token })).rejects.toThrow();

    const del = await workerFetch(`${BASE}/mcp`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${key.token}`, "mcp-session-id": sessions[0]! },
    });
    expect(del.status).toBe(204);
    const { client } = await connect({ token: key.token });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

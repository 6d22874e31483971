import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { McpSessions } from "../../src/durable/mcp-sessions";
import { buildSessionServer } from "../../src/modules/mcp/protocol-2025-11-25";
import type { CallEnv } from "../../src/modules/mcp/skills/run";
import { createWorld, type World } from "../helpers/seed";
import { authorizeWithConsent, MemoryOAuthClient } from "../oauth/helpers";
import { BASE, rawPost, workerFetch } from "./helpers";

// Issue #44 item 1: an MCP session id is not a credential. Every request on a 2025-xx session carries
// the credential that opened it, and it must be the same principal (the same API key; the same user,
// OAuth client and grant; for a session JWT the same user). No credential: 401. A valid credential of
// anyone else: 404, as if the session did not exist. Either way the session is untouched.

const VERSION = "2025-11-25";
let w: World;

/**
 * Every method the session leg serves, read from the server the leg builds (its request and
 * notification handlers), so a method added there is covered here without editing this list.
 */
function servedMethods() {
  const server = buildSessionServer({ env } as unknown as CallEnv) as unknown as {
    _requestHandlers: Map<string, unknown>;
    _notificationHandlers: Map<string, unknown>;
  };
  return {
    requests: [...server._requestHandlers.keys()],
    notifications: [...server._notificationHandlers.keys()],
  };
}

/** Sample params for the methods that need some; every other method is sent with `{}`. */
const PARAMS: Record<string, object> = {
  "tools/call": { name: "location.list", arguments: { limit: 1 } },
  "resources/read": { uri: "ui://reputation/inbox-triage.html" },
  "notifications/cancelled": { requestId: 99, reason: "test" },
  "notifications/progress": { progressToken: "p", progress: 1 },
};

type Probe = { name: string; send(sessionId: string, token: string | null): Promise<Response> };

const headersFor = (sessionId: string, token: string | null): Record<string, string> => ({
  "mcp-session-id": sessionId,
  "mcp-protocol-version": VERSION,
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

/** One probe per JSON-RPC method, notification and transport-level request of a session. */
function probes(): Probe[] {
  const { requests, notifications } = servedMethods();
  const out: Probe[] = [];
  // initialize opens a session (it is checked on its own in transport.test.ts); every other request is on one
  for (const method of requests.filter((m) => m !== "initialize")) {
    out.push({
      name: method,
      send: (s, t) => rawPost({ jsonrpc: "2.0", id: 7, method, params: PARAMS[method] ?? {} }, headersFor(s, t)),
    });
  }
  for (const method of notifications) {
    out.push({
      name: method,
      send: (s, t) => rawPost({ jsonrpc: "2.0", method, params: PARAMS[method] ?? {} }, headersFor(s, t)),
    });
  }
  // a method the server does not serve is still a request on the session
  out.push({
    name: "prompts/list (not served)",
    send: (s, t) => rawPost({ jsonrpc: "2.0", id: 8, method: "prompts/list", params: {} }, headersFor(s, t)),
  });
  // the client's answer to elicitation/create (a JSON-RPC response)
  out.push({
    name: "elicitation answer",
    send: (s, t) =>
      rawPost(
        { jsonrpc: "2.0", id: "elicit.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", result: { action: "decline" } },
        headersFor(s, t),
      ),
  });
  out.push({
    name: "GET (SSE stream)",
    send: (s, t) =>
      workerFetch(`${BASE}/mcp`, { method: "GET", headers: { accept: "text/event-stream", ...headersFor(s, t) } }),
  });
  out.push({
    name: "DELETE (end the session)",
    send: (s, t) => workerFetch(`${BASE}/mcp`, { method: "DELETE", headers: headersFor(s, t) }),
  });
  return out;
}

async function openSession(token: string, extra: Record<string, string> = {}): Promise<string> {
  const res = await rawPost(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "session-credential", version: "1" } },
    },
    { authorization: `Bearer ${token}`, ...extra },
  );
  expect(res.status).toBe(200);
  await res.body?.cancel();
  return res.headers.get("mcp-session-id")!;
}

const sessionStub = (sessionId: string) =>
  env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(sessionId.slice(0, sessionId.indexOf("."))));

/** The session's record in its Durable Object, as stored (null when gone). */
const stored = (sessionId: string) =>
  runInDurableObject(
    sessionStub(sessionId),
    async (_: McpSessions, state) => (await state.storage.get<Record<string, unknown>>(`s:${sessionId}`)) ?? null,
  );

/** The right credential's answer to each probe: it reached the session (no 401, no 404). */
async function expectServed(probe: Probe, res: Response) {
  const body = await res.text();
  const where = `${probe.name}: ${res.status} ${body.slice(0, 200)}`;
  expect(res.status, where).not.toBe(401);
  expect(res.status, where).not.toBe(404);
  if (probe.name.startsWith("GET")) expect(res.status, where).toBe(405);
  else if (probe.name.startsWith("DELETE")) expect(res.status, where).toBe(204);
  else if (probe.name.startsWith("notifications/")) expect(res.status, where).toBe(202);
  else if (probe.name === "elicitation answer") expect(res.status, where).toBe(400);
  else {
    expect(res.status, where).toBe(200);
    const rpc = JSON.parse(body) as { id: unknown; result?: unknown; error?: { code: number } };
    expect(rpc.id, where).toBe(probe.name.startsWith("prompts/") ? 8 : 7);
    if (probe.name.startsWith("prompts/")) expect(rpc.error?.code, where).toBe(-32601);
    else expect(rpc.result, where).toBeDefined();
  }
}

interface Principal {
  kind: string;
  right: string;
  /** valid credentials of other principals: each must find no session */
  foreign: [string, string][];
  /** x-tenant-id on initialize (a session JWT picks its tenant) */
  initHeaders?: Record<string, string>;
}

const principals: Principal[] = [];

beforeAll(async () => {
  w = await createWorld();
  const mint = async (as: "tenantAdmin" | "tenantBAdmin", name: string) =>
    (await w.as(as).post("/v1/api-keys", { name, scopes: ["read:locations", "read:contacts"] })).body.key as string;
  const keyA = await mint("tenantAdmin", "session-owner");
  const siblingKey = await mint("tenantAdmin", "sibling");
  const keyB = await mint("tenantBAdmin", "other-tenant");

  // two grants of the same user (the same app authorized twice) and one of another user
  const user = { email: w.users.tenantUser.email, tenantId: w.tenantA.id };
  const grant1 = await authorizeWithConsent(new MemoryOAuthClient("App one"), "read:locations", user);
  const grant2 = await authorizeWithConsent(new MemoryOAuthClient("App two"), "read:locations", user);
  const otherUsersGrant = await authorizeWithConsent(new MemoryOAuthClient("App one"), "read:locations", {
    email: w.users.manager.email,
    tenantId: w.tenantA.id,
  });

  principals.push(
    {
      kind: "API key",
      right: keyA,
      foreign: [
        ["another tenant's key", keyB],
        ["a sibling key of the same tenant", siblingKey],
        ["a session JWT of the key's tenant admin", w.users.tenantAdmin.token],
      ],
    },
    {
      kind: "session JWT",
      right: w.users.manager.token,
      initHeaders: { "x-tenant-id": w.tenantA.id },
      foreign: [
        ["another user's JWT (same tenant)", w.users.tenantUser.token],
        ["another tenant's admin's JWT", w.users.tenantBAdmin.token],
        ["the same user's OAuth grant", otherUsersGrant],
        ["an API key of the tenant", keyA],
      ],
    },
    {
      kind: "OAuth grant",
      right: grant1,
      foreign: [
        ["another grant of the same user", grant2],
        ["another user's grant", otherUsersGrant],
        ["the same user's session JWT", w.users.tenantUser.token],
        ["another tenant's key", keyB],
      ],
    },
  );
}, 60_000);

describe("every request on a session carries the credential that opened it", () => {
  it("the surface: every method the session leg serves, plus notifications, answers, GET and DELETE", () => {
    const names = probes().map((p) => p.name);
    // a floor, not the list: the list is read from the code
    for (const m of [
      "tools/list",
      "tools/call",
      "resources/list",
      "resources/read",
      "ping",
      "notifications/initialized",
    ])
      expect(names).toContain(m);
    expect(names).toContain("DELETE (end the session)");
    expect(names.length).toBeGreaterThanOrEqual(12);
  });

  for (const kind of ["API key", "session JWT", "OAuth grant"]) {
    it(`${kind}: no credential 401, a foreign one 404, both leave the session untouched; the right one is served`, async () => {
      const p = principals.find((x) => x.kind === kind)!;
      const sessionId = await openSession(p.right, p.initHeaders);
      const before = await stored(sessionId);
      expect(before).not.toBeNull();
      for (const probe of probes()) {
        const bare = await probe.send(sessionId, null);
        expect(bare.status, `${probe.name} without a credential`).toBe(401);
        expect(bare.headers.get("www-authenticate"), probe.name).toContain("resource_metadata=");
        await bare.body?.cancel();
        for (const [who, token] of p.foreign) {
          const res = await probe.send(sessionId, token);
          expect(res.status, `${probe.name} with ${who}`).toBe(404);
          expect(((await res.json()) as { code: string }).code).toBe("NOT_FOUND");
        }
        // untouched: not closed, not even its idle timer refreshed
        expect(await stored(sessionId), `${probe.name}: the session after refused requests`).toEqual(before);
      }
      for (const probe of probes()) await expectServed(probe, await probe.send(sessionId, p.right));
      // the DELETE above, with the right credential, ended it
      expect(await stored(sessionId)).toBeNull();
    }, 60_000);
  }

  it("the session keeps no credential: its record holds neither the token nor a sealed copy", async () => {
    const p = principals.find((x) => x.kind === "API key")!;
    const sessionId = await openSession(p.right);
    const record = (await stored(sessionId))!;
    expect(record).not.toHaveProperty("sealedCredential");
    expect(JSON.stringify(record)).not.toContain(p.right);
    expect(JSON.stringify(record)).not.toContain(p.right.slice(-16));
  });

  it("a revoked API key stops on its open session at once (no one-minute grace)", async () => {
    const created = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "revoked", scopes: ["read:locations"] }))
      .body;
    const sessionId = await openSession(created.key);
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    expect((await rawPost(list, headersFor(sessionId, created.key))).status).toBe(200);
    expect((await w.as("tenantAdmin").delete(`/v1/api-keys/${created.id}`)).status).toBe(204);
    const after = await rawPost(list, headersFor(sessionId, created.key));
    expect(after.status).toBe(401);
    expect(((await after.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
  });
});

import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, contacts } from "../../src/db/schema";
import { sessionRef } from "../../src/modules/mcp/audit";
import { createWorld, db, type World } from "../helpers/seed";
import {
  confirmationLink,
  confirmInBrowser,
  fetchWithEnv,
  MCP_URL,
  rawPost,
  sseMessages,
  workerFetch,
} from "./helpers";

// 2025-11-25 sessions whose client declared elicitation: a destructive tool asks the user with
// elicitation/create on the SSE stream of the tools/call POST; the answer comes back on a new POST
// (any isolate) and is brokered by the tenant's session Durable Object (docs/mcp.md, "Elicitation on
// 2025-11-25 sessions"). Both POSTs go through the Worker's own fetch handler, concurrently.

let w: World;
let key = "";
let otherKey = "";

beforeAll(async () => {
  w = await createWorld();
  const mint = async (name: string) =>
    (await w.as("tenantAdmin").post("/v1/api-keys", { name, scopes: ["read:contacts", "write:contacts"] })).body
      .key as string;
  key = await mint("elicit-writer");
  otherKey = await mint("elicit-other");
});

const newContact = async (email: string) => (await w.as("manager").post("/v1/contacts", { email })).body.id as string;
const suppressed = async (id: string) =>
  (await db().select().from(contacts).where(eq(contacts.id, id)).get())!.isSuppressed;
const suppressions = async (id: string) =>
  (
    await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, "contact.suppressed")))
      .all()
  ).length;

type Fetcher = typeof workerFetch;
const VERSION = "2025-11-25";

/** Opens a 2025-11-25 session declaring `capabilities`; returns its id. */
async function openSession(token: string, capabilities: object = { elicitation: {} }): Promise<string> {
  const res = await rawPost(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities, clientInfo: { name: "elicit-test", version: "1" } },
    },
    { authorization: `Bearer ${token}` },
  );
  expect(res.status).toBe(200);
  const sessionId = res.headers.get("mcp-session-id")!;
  await res.body?.cancel();
  const initialized = await rawPost(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { authorization: `Bearer ${token}`, "mcp-session-id": sessionId, "mcp-protocol-version": VERSION },
  );
  expect(initialized.status).toBe(202);
  return sessionId;
}

const sessionHeaders = (sessionId: string, token?: string): Record<string, string> => ({
  "mcp-session-id": sessionId,
  "mcp-protocol-version": VERSION,
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

/** A tools/call of contact.suppress in the session: the SSE stream, its first message, and a way to read the rest. */
async function callSuppress(sessionId: string, contactId: string, fetcher: Fetcher = workerFetch) {
  const res = await rawPost(
    {
      jsonrpc: "2.0",
      id: 11,
      method: "tools/call",
      params: { name: "contact.suppress", arguments: { contactId, reason: "asked" } },
    },
    sessionHeaders(sessionId, key),
    fetcher,
  );
  return res;
}

async function asked(sessionId: string, contactId: string, fetcher: Fetcher = workerFetch) {
  const res = await callSuppress(sessionId, contactId, fetcher);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const next = sseMessages(res);
  const request = await next();
  /** the rest of the stream: the tools/call response */
  const result = async () => {
    for (let m = await next(); m; m = await next()) if (m.id === 11) return m.result;
    throw new Error("the stream ended without the tools/call response");
  };
  return { request, result };
}

/** The client's answer to elicitation `id`, POSTed on its own as the transport says. */
const answer = (sessionId: string, id: unknown, result: object, token: string | null = key) =>
  rawPost({ jsonrpc: "2.0", id, result }, sessionHeaders(sessionId, token ?? undefined));

const ACCEPT = { action: "accept", content: { confirm: true } };
const errorText = (result: any) => JSON.parse(result.content[0].text).error as string;

describe("elicitation on 2025-11-25 sessions", () => {
  it("asks with elicitation/create on the call's stream; an accepted answer runs the write once", async () => {
    const session = await openSession(key);
    const id = await newContact("elicit-accept@example.com");
    const { request, result } = await asked(session, id);
    expect(request).toMatchObject({
      jsonrpc: "2.0",
      method: "elicitation/create",
      params: {
        mode: "form",
        requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
      },
    });
    expect(typeof request.id).toBe("string");
    expect(request.params.message).toContain(id);
    // nothing is written while the user is being asked
    expect(await suppressed(id)).toBe(false);

    const answered = await answer(session, request.id, ACCEPT);
    expect(answered.status).toBe(202);
    expect(await answered.text()).toBe("");
    const done = await result();
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ id, isSuppressed: true, suppressionReason: "asked" });
    expect(await suppressed(id)).toBe(true);
    expect(await suppressions(id)).toBe(1);

    // the same answer again is refused and writes nothing
    await db().update(contacts).set({ isSuppressed: false }).where(eq(contacts.id, id));
    const replayed = await answer(session, request.id, ACCEPT);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as any).code).toBe("VALIDATION_ERROR");
    expect(await suppressed(id)).toBe(false);
    expect(await suppressions(id)).toBe(1);

    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "mcp.tool_called"), eq(auditEvents.resourceId, "contact.suppress")))
      .all();
    // the row ties the call to its session by a keyed reference, never the session id (audit.ts sessionRef)
    const ref = await sessionRef(env, session);
    const ours = audit.filter((a) => (a.metadata as any)?.sessionRef === ref);
    expect(ours.map((a) => (a.metadata as any).outcome)).toEqual(["success"]);
  });

  for (const action of ["decline", "cancel"] as const) {
    it(`a ${action} writes nothing and the tool says so`, async () => {
      const session = await openSession(key);
      const id = await newContact(`elicit-${action}@example.com`);
      const { request, result } = await asked(session, id);
      expect((await answer(session, request.id, { action })).status).toBe(202);
      const done = await result();
      expect(done.isError).toBe(true);
      expect(errorText(done)).toContain(action === "decline" ? "declined" : "cancelled");
      expect(errorText(done)).toContain("nothing was done");
      expect(await suppressed(id)).toBe(false);
      expect(await suppressions(id)).toBe(0);
    });
  }

  it("an accept whose form says confirm: false is not a confirmation", async () => {
    const session = await openSession(key);
    const id = await newContact("elicit-unticked@example.com");
    const { request, result } = await asked(session, id);
    expect((await answer(session, request.id, { action: "accept", content: { confirm: false } })).status).toBe(202);
    expect((await result()).isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
  });

  it("an answer from another session of the same key is refused; the asking session's own answer still counts", async () => {
    const session = await openSession(key);
    const other = await openSession(key);
    const id = await newContact("elicit-other-session@example.com");
    const { request, result } = await asked(session, id);
    const forged = await answer(other, request.id, ACCEPT);
    expect(forged.status).toBe(400);
    expect(await suppressed(id)).toBe(false);
    expect((await answer(session, request.id, { action: "decline" })).status).toBe(202);
    expect((await result()).isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
  });

  it("an answer with another credential on the session finds no session (404), writes nothing and leaves the question to its caller", async () => {
    const session = await openSession(key);
    const id = await newContact("elicit-other-key@example.com");
    const { request, result } = await asked(session, id);
    const forged = await answer(session, request.id, ACCEPT, otherKey);
    expect(forged.status).toBe(404);
    expect(((await forged.json()) as any).code).toBe("NOT_FOUND");
    expect(await suppressed(id)).toBe(false);
    // the session and its question are untouched: the caller it was asked of still answers it
    expect((await answer(session, request.id, { action: "decline" })).status).toBe(202);
    const done = await result();
    expect(done.isError).toBe(true);
    expect(errorText(done)).toContain("nothing was done");
    expect(await suppressed(id)).toBe(false);
  });

  it("an answer must carry the session's credential: the session id alone is not enough", async () => {
    const session = await openSession(key);
    const id = await newContact("elicit-no-credential@example.com");
    const { request, result } = await asked(session, id);
    const bare = await answer(session, request.id, ACCEPT, null);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("resource_metadata=");
    expect(await suppressed(id)).toBe(false);
    // the question is still open for the caller it was asked of
    expect((await answer(session, request.id, { action: "decline" })).status).toBe(202);
    expect((await result()).isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
  });

  it("a made-up elicitation id is refused", async () => {
    const session = await openSession(key);
    const res = await answer(session, "elicit.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", ACCEPT);
    expect(res.status).toBe(400);
  });

  it("a session that did not declare elicitation confirms in the browser (JSON, no elicitation/create)", async () => {
    const session = await openSession(key, {});
    const id = await newContact("elicit-none@example.com");
    const res = await callSuppress(session, id);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as any;
    expect(body.result.isError).toBe(true);
    const link = confirmationLink(body.result)!;
    expect(link).toMatch(/\/confirm\//);
    expect(await suppressed(id)).toBe(false);
    await confirmInBrowser(link);
    const done = await rawPost(
      {
        jsonrpc: "2.0",
        id: 12,
        method: "tools/call",
        params: { name: "contact.suppress", arguments: { contactId: id, reason: "asked" } },
      },
      sessionHeaders(session, key),
    );
    expect(((await done.json()) as any).result.structuredContent).toMatchObject({ id, isSuppressed: true });
  });

  it("no answer in time: a tool error, no write, and a late answer is refused", async () => {
    const session = await openSession(key);
    const id = await newContact("elicit-timeout@example.com");
    const { request, result } = await asked(session, id, fetchWithEnv({ MCP_ELICITATION_TIMEOUT_MS: "200" }));
    const done = await result();
    expect(done.isError).toBe(true);
    expect(errorText(done)).toContain("no answer");
    expect(errorText(done)).toContain("nothing was done");
    expect((await answer(session, request.id, ACCEPT)).status).toBe(400);
    expect(await suppressed(id)).toBe(false);
    expect(await suppressions(id)).toBe(0);
  });

  it("the official SDK 1.x client with an elicitation handler: asked once, its answer posted by its transport", async () => {
    const id = await newContact("elicit-sdk@example.com");
    const transport = new StreamableHTTPClientTransport(MCP_URL, {
      fetch: workerFetch,
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: "sdk-elicit", version: "1" }, { capabilities: { elicitation: { form: {} } } });
    const questions: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      questions.push((req.params as { message: string }).message);
      return { action: "accept", content: { confirm: true } };
    });
    await client.connect(transport);
    expect(transport.protocolVersion).toBe(VERSION);
    const done = await client.callTool({ name: "contact.suppress", arguments: { contactId: id, reason: "asked" } });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ id, isSuppressed: true });
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain(id);
    expect(await suppressed(id)).toBe(true);
    expect(await suppressions(id)).toBe(1);
    await client.close();
  });

  it("the Durable Object: an answer that arrives before the call waits is kept for it, once; the session closing ends a wait", async () => {
    const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(`elicit-do-${Date.now()}`));
    const now = Date.now();
    const limits = { rateLimit: 100, windowSeconds: 900, maxSessions: 25, idleTtlMs: 60_000 };
    const pending = { sessionId: "t.s1", caller: "me", expiresAt: now + 60_000 };
    await stub.openElicitation("e1", pending, now);
    expect(await stub.answerElicitation("e1", "t.s2", "me", { action: "accept" }, now)).toBe("refused");
    expect(await stub.answerElicitation("e1", "t.s1", "someone else", { action: "accept" }, now)).toBe("refused");
    expect(await stub.answerElicitation("e1", "t.s1", "me", { action: "decline" }, now)).toBe("accepted");
    expect(await stub.answerElicitation("e1", "t.s1", "me", { action: "accept" }, now)).toBe("refused");
    expect(await stub.awaitElicitation("e1", 60_000)).toEqual({ action: "decline" });
    expect(await stub.awaitElicitation("e1", 60_000)).toEqual({ action: "ended" });

    await stub.openElicitation("e2", { ...pending, expiresAt: now - 1 }, now);
    expect(await stub.answerElicitation("e2", "t.s1", "me", { action: "accept" }, now)).toBe("refused");

    // a session of that id, bound to the principal "p1": only its own principal's close ends it
    await stub.open({ id: "t.s1", principal: "p1", protocolVersion: VERSION }, limits, now);
    await stub.openElicitation("e3", pending, now);
    const waiting = stub.awaitElicitation("e3", 60_000);
    expect(await stub.close("t.s1", ["p2"], limits.idleTtlMs, now)).toBe(false);
    expect(await stub.close("t.s1", ["p1"], limits.idleTtlMs, now)).toBe(true);
    expect(await waiting).toEqual({ action: "ended" });
    expect(await stub.answerElicitation("e3", "t.s1", "me", { action: "accept" }, now)).toBe("refused");
  });
});

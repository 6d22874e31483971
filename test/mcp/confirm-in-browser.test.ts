import { env, runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, contacts } from "../../src/db/schema";
import type { McpSessions, PendingConfirmation } from "../../src/durable/mcp-sessions";
import { ConsoleBrowser, textOf } from "../console/helpers";
import { createWorld, db, type World } from "../helpers/seed";
import { authorizeWithConsent, MemoryOAuthClient } from "../oauth/helpers";
import {
  askOfLink,
  BASE,
  confirmationLink,
  connect,
  rawPost,
  sseMessages,
  statelessCall,
  workerFetch,
} from "./helpers";

// Confirming a destructive MCP call in the browser (issue #45 item 8; docs/mcp.md "Confirmation"). A client
// without form elicitation gets no code: the refusal links to the console's confirm page, where the person
// who may confirm signs in, sees what the call will do and confirms with a CSRF-protected form; the model's
// retry of the same call then runs, once. Everything over the Worker's fetch handler: MCP and console HTTP.

let w: World;
let key = "";

beforeAll(async () => {
  w = await createWorld();
  key = (
    await w
      .as("tenantAdmin")
      .post("/v1/api-keys", { name: "browser-writer", scopes: ["read:contacts", "write:contacts"] })
  ).body.key;
});

const newContact = async (email: string) => (await w.as("manager").post("/v1/contacts", { email })).body.id as string;
const suppressed = async (id: string) =>
  (await db().select().from(contacts).where(eq(contacts.id, id)).get())!.isSuppressed;
const unsuppress = (id: string) => db().update(contacts).set({ isSuppressed: false }).where(eq(contacts.id, id));

const suppress = (token: string, contactId: string, o: Parameters<typeof statelessCall>[3] = {}, extra = {}) =>
  statelessCall(token, "contact.suppress", { contactId, reason: "asked", ...extra }, o).then((r) => r.result);
const refusalOf = (result: any) => JSON.parse(result.content[0].text);

/** Signs `who` in to the console with the password form (the whole flow below). */
async function signedInByForm(who: keyof World["users"]) {
  const b = new ConsoleBrowser();
  expect((await b.signIn(w.users[who].email)).status).toBe(303);
  return b;
}

/** `who` with the session the sign-in form opens, without its password check (scrypt, ~0.3 s of CPU each). */
async function signedIn(who: keyof World["users"]) {
  const b = new ConsoleBrowser();
  expect((await b.seededSession(w.users[who].id)).status).toBe(200);
  return b;
}

/** The confirm page's path from its link (the link is on the platform's host, PUBLIC_BASE_URL). */
const pathOf = (link: string) => {
  expect(new URL(link).origin).toBe(BASE);
  return new URL(link).pathname;
};

/** Every string in a value, at any depth: what a model could copy from a tool result. */
function stringsIn(v: unknown): string[] {
  if (typeof v === "string") return [v, ...v.split(/[\s"'(),]+/).filter(Boolean)];
  if (Array.isArray(v)) return v.flatMap(stringsIn);
  if (v && typeof v === "object") return Object.values(v).flatMap(stringsIn);
  return [];
}

describe("a client without form elicitation confirms in the browser", () => {
  it("the tool result never contains a confirmation code: nothing the model can send back runs the call", async () => {
    const id = await newContact("no-code@example.com");
    const refused = await suppress(key, id);
    expect(refused.isError).toBe(true);
    const text = JSON.stringify(refused);
    expect(text).not.toMatch(/mc1\./);
    const body = refusalOf(refused);
    expect(body.confirmation).not.toHaveProperty("code");
    expect(body.confirmation.url).toMatch(new RegExp(`^${BASE}/app/t/${w.tenantA.id}/confirm/[A-Za-z0-9_-]{32}$`));
    expect(body.error).toContain("confirmation in the browser");
    expect(body.error).toContain(body.confirmation.url);
    expect(body.error).toContain("a manager or admin of this business");
    // a model that copies anything from the result (or says true) into `confirm` confirms nothing
    const candidates = [...new Set([...stringsIn(refused), ...stringsIn(body)])].filter((s) => s.length >= 8);
    for (const confirm of [true, "true", ...candidates]) {
      const again = await suppress(key, id, {}, { confirm });
      expect(again.isError, String(confirm).slice(0, 40)).toBe(true);
    }
    expect(await suppressed(id)).toBe(false);
  });

  it("a 2025-11-25 session without elicitation gets the link too, and nothing in its result confirms", async () => {
    const id = await newContact("no-code-session@example.com");
    const { client } = await connect({ token: key });
    const refused = await client.callTool({ name: "contact.suppress", arguments: { contactId: id, reason: "asked" } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused)).not.toMatch(/mc1\./);
    const link = confirmationLink(refused)!;
    expect(askOfLink(link).tenantId).toBe(w.tenantA.id);
    for (const confirm of stringsIn(refused).filter((s) => s.length >= 8)) {
      const again = await client.callTool({
        name: "contact.suppress",
        arguments: { contactId: id, reason: "asked", confirm },
      });
      expect(again.isError).toBe(true);
    }
    // the same call asked again answers the same link while it waits for a person
    const again = await client.callTool({ name: "contact.suppress", arguments: { contactId: id, reason: "asked" } });
    expect(confirmationLink(again)).toBe(link);
    expect(await suppressed(id)).toBe(false);
  });

  it("the whole flow: sign in, the page shows the call, POST confirm with the CSRF token, the retry runs once", async () => {
    const id = await newContact("whole-flow@example.com");
    const link = confirmationLink(await suppress(key, id))!;
    const admin = await signedInByForm("tenantAdmin");
    const page = await admin.get(pathOf(link));
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain("Confirm an assistant's request");
    expect(text).toContain(`Stop every message to contact ${id}? Reason: asked`);
    expect(text).toContain("contact.suppress");
    expect(text).toContain("whole-flow@example.com");
    expect(text).toContain("an API key of this business");
    expect(page.text).toMatch(new RegExp(`<form method="post" action="${pathOf(link)}"`));
    // without the session's CSRF token nothing is confirmed
    expect((await admin.post(pathOf(link), { decision: "confirm" }, { csrf: "" })).status).toBe(403);
    expect(await suppressed(id)).toBe(false);
    expect((await suppress(key, id)).isError).toBe(true);

    const confirmed = await admin.post(pathOf(link), { decision: "confirm" });
    expect(confirmed.status).toBe(303);
    expect(textOf((await admin.follow(confirmed)).text)).toContain("You confirmed it");
    const done = await suppress(key, id);
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ id, isSuppressed: true });
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "mcp.confirmation_confirmed"), eq(auditEvents.actorId, w.users.tenantAdmin.id)))
      .all();
    expect(rows.map((r) => r.metadata)).toContainEqual(
      expect.objectContaining({ tool: "contact.suppress", credential: "api_key", channel: "console" }),
    );

    // once: the same call again needs a new confirmation; the spent page is gone
    await unsuppress(id);
    const replay = await suppress(key, id);
    expect(replay.isError).toBe(true);
    expect(confirmationLink(replay)).not.toBe(link);
    expect(await suppressed(id)).toBe(false);
    expect((await admin.get(pathOf(link))).status).toBe(404);
    expect((await admin.post(pathOf(link), { decision: "confirm" })).status).toBe(404);
  });

  it("a confirmation holds for that call only: other arguments, another key or another session are asked anew", async () => {
    const id = await newContact("exact@example.com");
    const other = await newContact("exact-other@example.com");
    const link = confirmationLink(await suppress(key, id))!;
    const admin = await signedIn("manager");
    await admin.get(pathOf(link));
    expect((await admin.post(pathOf(link), { decision: "confirm" })).status).toBe(303);
    const otherKey = (
      await w.as("tenantAdmin").post("/v1/api-keys", { name: "sibling", scopes: ["read:contacts", "write:contacts"] })
    ).body.key;
    expect((await suppress(key, other)).isError).toBe(true);
    expect((await suppress(key, id, {}, { reason: "something else" })).isError).toBe(true);
    expect((await suppress(otherKey, id)).isError).toBe(true);
    const { client } = await connect({ token: key });
    expect(
      (await client.callTool({ name: "contact.suppress", arguments: { contactId: id, reason: "asked" } })).isError,
    ).toBe(true);
    expect(await suppressed(id)).toBe(false);
    expect(await suppressed(other)).toBe(false);
    // the confirmed call itself still runs
    expect((await suppress(key, id)).structuredContent).toMatchObject({ isSuppressed: true });
  });

  it("an API key's call is confirmed by a manager or tenant_admin: the team member and the viewer are refused", async () => {
    const id = await newContact("roles@example.com");
    const link = confirmationLink(await suppress(key, id))!;
    for (const who of ["viewer", "tenantUser"] as const) {
      const b = await signedIn(who);
      const page = await b.get(pathOf(link));
      expect(page.status, who).toBe(403);
      // the refusal shows nothing of the call
      expect(page.text, who).not.toContain(id);
      expect(page.text, who).not.toContain("roles@example.com");
      expect((await b.post(pathOf(link), { decision: "confirm" })).status, who).toBe(403);
    }
    expect((await suppress(key, id)).isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
    const manager = await signedIn("manager");
    expect((await manager.get(pathOf(link))).status).toBe(200);
    expect((await manager.post(pathOf(link), { decision: "confirm" })).status).toBe(303);
    expect((await suppress(key, id)).structuredContent).toMatchObject({ isSuppressed: true });
  });

  it("an OAuth grant's call is confirmed only by the person behind the grant", async () => {
    const token = await authorizeWithConsent(new MemoryOAuthClient("browser app"), "read:contacts write:contacts", {
      email: w.users.tenantUser.email,
      tenantId: w.tenantA.id,
    });
    const id = await newContact("oauth-person@example.com");
    const refused = await suppress(token, id);
    expect(refusalOf(refused).error).toContain("the person signed in to this connection");
    const link = confirmationLink(refused)!;
    // the tenant's admin is someone else: refused, nothing confirmed
    const admin = await signedIn("tenantAdmin");
    expect((await admin.get(pathOf(link))).status).toBe(403);
    expect((await admin.post(pathOf(link), { decision: "confirm" })).status).toBe(403);
    expect((await suppress(token, id)).isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
    // the person who connected the app
    const person = await signedIn("tenantUser");
    const page = await person.get(pathOf(link));
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("an app you connected (OAuth)");
    expect((await person.post(pathOf(link), { decision: "confirm" })).status).toBe(303);
    expect((await suppress(token, id)).structuredContent).toMatchObject({ isSuppressed: true });
  });

  it("another tenant's confirmation is a 404, under either tenant's address", async () => {
    const id = await newContact("tenant-b-view@example.com");
    const link = confirmationLink(await suppress(key, id))!;
    const { id: ask } = askOfLink(link);
    const outsider = await signedIn("tenantBAdmin");
    expect((await outsider.get(pathOf(link))).status).toBe(404);
    expect((await outsider.post(pathOf(link), { decision: "confirm" })).status).toBe(404);
    const underB = `/app/t/${w.tenantB.id}/confirm/${ask}`;
    const page = await outsider.get(underB);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain(id);
    expect((await outsider.post(underB, { decision: "confirm" })).status).toBe(404);
    expect((await suppress(key, id)).isError).toBe(true);
    expect(await suppressed(id)).toBe(false);
  });

  it("declined on the page: the ask is dropped and the retry asks again", async () => {
    const id = await newContact("declined@example.com");
    const link = confirmationLink(await suppress(key, id))!;
    const admin = await signedIn("tenantAdmin");
    await admin.get(pathOf(link));
    expect((await admin.post(pathOf(link), { decision: "decline" })).status).toBe(303);
    expect((await admin.get(pathOf(link))).status).toBe(404);
    const again = await suppress(key, id);
    expect(again.isError).toBe(true);
    expect(confirmationLink(again)).not.toBe(link);
    expect(await suppressed(id)).toBe(false);
  });

  it("an expired ask: the page says so (410) and confirms nothing; a confirmation that expired does not run the call", async () => {
    const expire = async (link: string) => {
      const { tenantId, id } = askOfLink(link);
      const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(tenantId));
      await runInDurableObject(stub, (_: McpSessions, state: DurableObjectState) => {
        const pending = state.storage.kv.get<PendingConfirmation>(`c:${id}`)!;
        state.storage.kv.put(`c:${id}`, { ...pending, expiresAt: Date.now() - 1 });
      });
    };
    const admin = await signedIn("tenantAdmin");
    const id = await newContact("expired@example.com");
    const link = confirmationLink(await suppress(key, id))!;
    await expire(link);
    const page = await admin.get(pathOf(link));
    expect(page.status).toBe(410);
    expect(textOf(page.text)).toContain("This request has expired");
    expect((await admin.post(pathOf(link), { decision: "confirm" })).status).toBe(410);
    expect((await suppress(key, id)).isError).toBe(true);

    // confirmed in time, retried too late
    const late = await newContact("expired-late@example.com");
    const second = confirmationLink(await suppress(key, late))!;
    await admin.get(pathOf(second));
    expect((await admin.post(pathOf(second), { decision: "confirm" })).status).toBe(303);
    await expire(second);
    const retry = await suppress(key, late);
    expect(retry.isError).toBe(true);
    expect(confirmationLink(retry)).not.toBe(second);
    expect(await suppressed(id)).toBe(false);
    expect(await suppressed(late)).toBe(false);
  });

  it("a 2026-07-28 client that declares URL elicitation only is sent to the page with input_required, not shown a form", async () => {
    const id = await newContact("url-only-2026@example.com");
    const urlOnly = { capabilities: { elicitation: { url: {} } } };
    const asked = await suppress(key, id, urlOnly);
    expect(asked.resultType).toBe("input_required");
    const request = asked.inputRequests.confirm;
    expect(request).toMatchObject({ method: "elicitation/create", params: { mode: "url" } });
    expect(request.params).not.toHaveProperty("requestedSchema");
    expect(request.params.url).toMatch(new RegExp(`^${BASE}/app/t/${w.tenantA.id}/confirm/[A-Za-z0-9_-]{32}$`));
    expect(request.params.message).toContain(`Stop every message to contact ${id}?`);
    expect(stringsIn(asked).some((v) => /^mc1\./.test(v))).toBe(false);
    const retry = (action: string) => ({
      ...urlOnly,
      extra: { inputResponses: { confirm: { action } }, requestState: asked.requestState },
    });
    // the client says the user is done, but nobody confirmed on the page: asked again, nothing done
    const early = await suppress(key, id, retry("accept"));
    expect(early.resultType).toBe("input_required");
    expect(early.inputRequests.confirm.params.url).toBe(request.params.url);
    expect(await suppressed(id)).toBe(false);
    // confirmed on the page, then the client's retry runs the call, once
    const admin = await signedIn("tenantAdmin");
    await admin.get(pathOf(request.params.url));
    expect((await admin.post(pathOf(request.params.url), { decision: "confirm" })).status).toBe(303);
    const ran = await suppress(key, id, retry("accept"));
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ id, isSuppressed: true });
    expect(await suppressed(id)).toBe(true);
    expect((await suppress(key, id, retry("accept"))).resultType).toBe("input_required");
    // a form-capable client is still asked with the form
    const form = await suppress(key, id, { capabilities: { elicitation: {} } });
    expect(form.inputRequests.confirm.params).toHaveProperty("requestedSchema");
  });

  it("a 2026-07-28 URL-only client whose user declines in the client: refused, nothing done", async () => {
    const id = await newContact("url-only-2026-declined@example.com");
    const urlOnly = { capabilities: { elicitation: { url: {} } } };
    const asked = await suppress(key, id, urlOnly);
    const declined = await suppress(key, id, {
      ...urlOnly,
      extra: { inputResponses: { confirm: { action: "decline" } }, requestState: asked.requestState },
    });
    expect(declined.isError).toBe(true);
    expect(refusalOf(declined).error).toBe("The user did not confirm; nothing was done");
    expect(await suppressed(id)).toBe(false);
  });
});

describe("a 2025-11-25 session whose client declared URL-mode elicitation", () => {
  const VERSION = "2025-11-25";
  const headers = (session: string) => ({
    authorization: `Bearer ${key}`,
    "mcp-session-id": session,
    "mcp-protocol-version": VERSION,
  });

  async function openUrlSession(): Promise<string> {
    const res = await rawPost(
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: VERSION,
          capabilities: { elicitation: { url: {} } },
          clientInfo: { name: "u", version: "1" },
        },
      },
      { authorization: `Bearer ${key}` },
    );
    const session = res.headers.get("mcp-session-id")!;
    await res.body?.cancel();
    await rawPost({ jsonrpc: "2.0", method: "notifications/initialized" }, headers(session));
    return session;
  }

  it("elicitation/create in mode url names the page; once confirmed there the waiting call finishes", async () => {
    const session = await openUrlSession();
    const id = await newContact("url-session@example.com");
    const res = await rawPost(
      {
        jsonrpc: "2.0",
        id: 21,
        method: "tools/call",
        params: { name: "contact.suppress", arguments: { contactId: id, reason: "asked" } },
      },
      headers(session),
    );
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const next = sseMessages(res);
    const ask = await next();
    expect(ask).toMatchObject({ method: "elicitation/create", params: { mode: "url" } });
    expect(ask.params).not.toHaveProperty("requestedSchema");
    expect(ask.params.url).toMatch(new RegExp(`^${BASE}/app/t/${w.tenantA.id}/confirm/`));
    expect(ask.params.elicitationId).toBe(askOfLink(ask.params.url).id);
    expect(ask.params.message).toContain(`Stop every message to contact ${id}?`);
    expect(JSON.stringify(ask)).not.toMatch(/mc1\./);
    // the user agreed to open the page (no decision yet): nothing is written
    expect((await rawPost({ jsonrpc: "2.0", id: ask.id, result: { action: "accept" } }, headers(session))).status).toBe(
      202,
    );
    expect(await suppressed(id)).toBe(false);

    const admin = await signedIn("tenantAdmin");
    await admin.get(pathOf(ask.params.url));
    expect((await admin.post(pathOf(ask.params.url), { decision: "confirm" })).status).toBe(303);
    const complete = await next();
    expect(complete).toEqual({
      jsonrpc: "2.0",
      method: "notifications/elicitation/complete",
      params: { elicitationId: ask.params.elicitationId },
    });
    const result = await next();
    expect(result.id).toBe(21);
    expect(result.result.structuredContent).toMatchObject({ id, isSuppressed: true });
    expect(await suppressed(id)).toBe(true);
    // spent: the page is gone
    expect((await admin.get(pathOf(ask.params.url))).status).toBe(404);
  });

  it("declined in the client or on the page: nothing is done", async () => {
    const session = await openUrlSession();
    const id = await newContact("url-declined@example.com");
    const call = () =>
      rawPost(
        {
          jsonrpc: "2.0",
          id: 22,
          method: "tools/call",
          params: { name: "contact.suppress", arguments: { contactId: id, reason: "asked" } },
        },
        headers(session),
      );
    let next = sseMessages(await call());
    let ask = await next();
    await rawPost({ jsonrpc: "2.0", id: ask.id, result: { action: "decline" } }, headers(session));
    let result = await next();
    expect(result.result.isError).toBe(true);
    expect(refusalOf(result.result).error).toContain("declined");

    next = sseMessages(await call());
    ask = await next();
    await rawPost({ jsonrpc: "2.0", id: ask.id, result: { action: "accept" } }, headers(session));
    const admin = await signedIn("tenantAdmin");
    await admin.get(pathOf(ask.params.url));
    expect((await admin.post(pathOf(ask.params.url), { decision: "decline" })).status).toBe(303);
    result = await next();
    expect(refusalOf(result.result).error).toBe("The user declined in the browser; nothing was done");
    expect(await suppressed(id)).toBe(false);
  });

  it("the session ended (DELETE) while its call waits for the page: the call ends at once and a later confirmation runs nothing", async () => {
    const session = await openUrlSession();
    const id = await newContact("url-ended@example.com");
    const next = sseMessages(
      await rawPost(
        {
          jsonrpc: "2.0",
          id: 23,
          method: "tools/call",
          params: { name: "contact.suppress", arguments: { contactId: id, reason: "asked" } },
        },
        headers(session),
      ),
    );
    const ask = await next();
    // the user agreed to open the page: the call now waits for the decision there, not for the client
    await rawPost({ jsonrpc: "2.0", id: ask.id, result: { action: "accept" } }, headers(session));
    const ended = await workerFetch(`${BASE}/mcp`, { method: "DELETE", headers: headers(session) });
    expect(ended.status).toBe(204);
    const result = await next();
    expect(result.id).toBe(23);
    expect(result.result.isError).toBe(true);
    expect(refusalOf(result.result).error).toBe("The session ended before the user answered; nothing was done");
    // the person confirms afterwards: no call is waiting, nothing runs
    const admin = await signedIn("tenantAdmin");
    await admin.get(pathOf(ask.params.url));
    expect((await admin.post(pathOf(ask.params.url), { decision: "confirm" })).status).toBe(303);
    expect(await suppressed(id)).toBe(false);
  });
});

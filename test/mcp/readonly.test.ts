// /mcp/readonly (docs/mcp.md, Read-only endpoint): lists and runs only tools annotated readOnlyHint,
// on both revisions; a write tool is an unknown tool there. It is an OAuth protected resource of its
// own: a token issued for /mcp is refused there and a token issued for it is refused at /mcp.
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../src/modules/oauth/scopes";
import { createWorld, type World } from "../helpers/seed";
import { authorizeWithConsent, MemoryOAuthClient } from "../oauth/helpers";
import {
  BASE,
  connect,
  connectV2,
  initializeBody,
  MCP_READONLY_URL,
  mintTestKey,
  rawPost,
  statelessRequest,
  structured,
  workerFetch,
} from "./helpers";

let w: World;
let key = "";
let contactId = "";

const names = (tools: { name: string }[]) => tools.map((t) => t.name);
const READ_TOOLS = ["contact.list", "location.finder", "location.list", "location.review-links", "white-label.get"];

beforeAll(async () => {
  w = await createWorld();
  contactId = (await w.as("manager").post("/v1/contacts", { email: "readonly@example.com" })).body.id;
  await w.as("tenantBAdmin").post("/v1/contacts", { email: "other-tenant@example.com" });
  key = mintTestKey(w.tenantA.id, ["read:contacts", "write:contacts", "read:locations"]).token;
});

const REVISIONS = {
  "2026-07-28": async (url: URL, headers: Record<string, string> = {}) =>
    (await connectV2({ token: key, url, headers })).client,
  "2025-11-25": async (url: URL, headers: Record<string, string> = {}) => {
    const { client, transport } = await connect({ token: key, url, headers });
    expect(transport.protocolVersion).toBe("2025-11-25");
    return client;
  },
};

for (const [revision, open] of Object.entries(REVISIONS)) {
  describe(`${revision} at /mcp/readonly`, () => {
    it("lists only the read tools (readOnlyHint: true), sorted; /mcp lists the write tool beside them", async () => {
      const full = await open(new URL(`${BASE}/mcp`));
      expect(names((await full.listTools()).tools)).toEqual([
        "contact.import-csv",
        "contact.list",
        "contact.suppress",
        ...READ_TOOLS.slice(1),
      ]);
      const client = await open(MCP_READONLY_URL);
      const { tools } = await client.listTools();
      expect(names(tools)).toEqual(READ_TOOLS);
      expect(tools.map((t) => t.annotations?.readOnlyHint)).toEqual(READ_TOOLS.map(() => true));
      await client.close();
      await full.close();
    });

    it("runs a read tool for the key's tenant only, and refuses the write tool by name as an unknown tool", async () => {
      const client = await open(MCP_READONLY_URL);
      const listed = structured(await client.callTool({ name: "contact.list", arguments: {} }));
      expect(listed.data.map((c: { email: string }) => c.email)).toEqual(["readonly@example.com"]);
      await expect(
        client.callTool({ name: "contact.suppress", arguments: { contactId, reason: "asked" } }),
      ).rejects.toThrow(/Unknown tool: contact\.suppress/);
      const after = await w.as("manager").get(`/v1/contacts/${contactId}`);
      expect(after.body.isSuppressed).toBe(false);
      await client.close();
    });

    it("toolsets narrow it further: ?toolsets=contact is contact.list alone", async () => {
      const client = await open(new URL(`${MCP_READONLY_URL.href}?toolsets=contact`));
      expect(names((await client.listTools()).tools)).toEqual(["contact.list"]);
      await client.close();
    });
  });
}

describe("what /mcp/readonly refuses", () => {
  it("on the wire, a write tool is {code: -32602, message: Unknown tool: <name>} (2026-07-28)", async () => {
    const res = await statelessRequest(key, "/mcp/readonly", "tools/call", {
      name: "contact.suppress",
      arguments: { contactId, reason: "x" },
    });
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Unknown tool: contact.suppress" },
    });
  });

  it("naming a write tool in X-MCP-Tools is refused with the reason (400 on 2025-11-25)", async () => {
    const res = await rawPost(
      initializeBody("2025-11-25"),
      { authorization: `Bearer ${key}`, "x-mcp-tools": "contact.list,contact.suppress" },
      (input, init) => workerFetch(String(input).replace(/\/mcp$/, "/mcp/readonly"), init),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "VALIDATION_ERROR",
      error:
        "Unknown tool: contact.suppress (not a read-only tool of this catalogue (/mcp/readonly serves only those))",
      details: { unknownTools: ["contact.suppress"] },
    });
  });

  it("every tool of the whole catalogue it lists is read-only, and it lists every read tool /mcp lists", async () => {
    const all = mintTestKey(w.tenantA.id, [...ALL_SCOPES]).token;
    const list = async (path: string) =>
      ((await (await statelessRequest(all, path, "tools/list", {})).json()) as any).result.tools as {
        name: string;
        annotations: { readOnlyHint: boolean };
      }[];
    const full = await list("/mcp");
    const readonly = await list("/mcp/readonly");
    expect(names(readonly)).toEqual(names(full.filter((t) => t.annotations.readOnlyHint)));
    expect(names(full.filter((t) => !t.annotations.readOnlyHint))).toEqual([
      "agent.template-generator",
      "campaign.send-bulk",
      "contact.import-csv",
      "contact.suppress",
      "inbox.assign",
      "inbox.set-status",
      "inbox.set-tags",
      "response.approve",
      "response.mark-published",
      "response.reject",
      "response.update",
      "review.sync",
    ]);
    expect(names(readonly)).not.toContain("agent.template-generator");
    expect(readonly.length).toBe(full.length - 12);
  });

  it("a session opened at /mcp and sent to /mcp/readonly is served the read tools only (the endpoint decides per request)", async () => {
    const init = await rawPost(initializeBody("2025-11-25"), { authorization: `Bearer ${key}` });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${key}`,
      "mcp-session-id": init.headers.get("mcp-session-id")!,
      "mcp-protocol-version": "2025-11-25",
    };
    const res = await workerFetch(`${BASE}/mcp/readonly`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(names(((await res.json()) as any).result.tools)).toEqual(READ_TOOLS);
  });
});

describe("/mcp/readonly is an OAuth protected resource of its own", () => {
  it("401 points at its own RFC 9728 metadata, which names it as the resource", async () => {
    const res = await workerFetch(`${BASE}/mcp/readonly`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(initializeBody("2025-11-25")),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp/readonly"`,
    );
    const meta = (await (await workerFetch(`${BASE}/.well-known/oauth-protected-resource/mcp/readonly`)).json()) as any;
    expect(meta).toMatchObject({
      resource: `${BASE}/mcp/readonly`,
      authorization_servers: [BASE],
      bearer_methods_supported: ["header"],
    });
    expect(
      ((await (await workerFetch(`${BASE}/.well-known/oauth-protected-resource/mcp`)).json()) as any).resource,
    ).toBe(`${BASE}/mcp`);
  });

  it("a token issued for /mcp is refused at /mcp/readonly, a token issued for /mcp/readonly is refused at /mcp (RFC 8707 audience)", async () => {
    const who = { email: w.users.manager.email, tenantId: w.tenantA.id };
    const forMcp = await authorizeWithConsent(new MemoryOAuthClient("Full Client"), "read:contacts", who);
    const forReadonly = await authorizeWithConsent(
      new MemoryOAuthClient("Read-only Client"),
      "read:contacts",
      who,
      MCP_READONLY_URL,
    );
    const listAt = async (token: string, path: string) => {
      const res = await statelessRequest(token, path, "tools/list", {});
      return {
        status: res.status,
        challenge: res.headers.get("www-authenticate"),
        tools: res.status === 200 ? names(((await res.json()) as any).result.tools) : null,
      };
    };
    expect(await listAt(forMcp, "/mcp")).toMatchObject({ status: 200, tools: ["contact.list"] });
    expect(await listAt(forReadonly, "/mcp/readonly")).toMatchObject({ status: 200, tools: ["contact.list"] });
    expect(await listAt(forMcp, "/mcp/readonly")).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp/readonly"`,
      tools: null,
    });
    expect(await listAt(forReadonly, "/mcp")).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
      tools: null,
    });
  });
});

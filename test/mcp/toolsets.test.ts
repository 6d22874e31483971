// A client narrows the tools it is served (docs/mcp.md, Toolsets): X-MCP-Toolsets / ?toolsets= by name
// prefix, X-MCP-Tools / ?tools= by name, on both revisions; tools/list shows exactly the selection,
// sorted by name, and a tool outside it is an unknown tool for tools/call.
import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import {
  connect,
  connectV2,
  initializeBody,
  MCP_URL,
  mintTestKey,
  rawPost,
  statelessRequest,
  structured,
} from "./helpers";

let w: World;
let key = "";

/** Every tool this key sees on /mcp without narrowing, in the order tools/list must give. */
const ALL = [
  "contact.import-csv",
  "contact.list",
  "contact.suppress",
  "inbox.get",
  "inbox.list",
  "location.finder",
  "location.list",
  "location.review-links",
  "review.alert-subscriptions",
  "review.auto-replies",
  "review.list",
  "review.summary",
  "review.widgets",
  "sla.overdue",
  "survey.responses",
  "white-label.get",
];

beforeAll(async () => {
  w = await createWorld();
  await w.as("manager").post("/v1/locations", { name: "Toolset Street", city: "Springfield" });
  await w.as("manager").post("/v1/contacts", { email: "toolsets@example.com" });
  key = mintTestKey(w.tenantA.id, [
    "read:reviews",
    "read:feedback",
    "read:locations",
    "read:contacts",
    "write:contacts",
  ]).token;
});

const names = (tools: { name: string }[]) => tools.map((t) => t.name);
const withQuery = (query: string) => new URL(`${MCP_URL.href}?${query}`);

/** One client per revision, with the same narrowing: 2026-07-28 (v2 client, stateless) and 2025-11-25 (v1 client, a session). */
const REVISIONS = {
  "2026-07-28": async (o: { url?: URL; headers?: Record<string, string> }) =>
    (await connectV2({ token: key, ...o })).client,
  "2025-11-25": async (o: { url?: URL; headers?: Record<string, string> }) => {
    const { client, transport } = await connect({ token: key, ...o });
    expect(transport.protocolVersion).toBe("2025-11-25");
    return client;
  },
};

/** A 2026-07-28 request by hand at `path` (for statuses and the wire error the clients turn into exceptions). */
const statelessAt = (
  path: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
) => statelessRequest(key, path, method, params, headers);

for (const [revision, open] of Object.entries(REVISIONS)) {
  describe(`${revision}: narrowing the tools`, () => {
    it("without narrowing: every tool the key's scopes allow, sorted by name, the same on every list", async () => {
      const client = await open({});
      const first = names((await client.listTools()).tools);
      expect(first).toEqual(ALL);
      expect(names((await client.listTools()).tools)).toEqual(first);
      await client.close();
    });

    it("X-MCP-Toolsets: reviews,inbox lists the review.* and inbox.* tools only; another tool is unknown to tools/call", async () => {
      const client = await open({ headers: { "X-MCP-Toolsets": "reviews,inbox" } });
      expect(names((await client.listTools()).tools)).toEqual([
        "inbox.get",
        "inbox.list",
        "review.alert-subscriptions",
        "review.auto-replies",
        "review.list",
        "review.summary",
        "review.widgets",
      ]);
      expect(structured(await client.callTool({ name: "review.list", arguments: {} })).data).toEqual([]);
      await expect(client.callTool({ name: "location.list", arguments: {} })).rejects.toThrow(
        /Unknown tool: location\.list/,
      );
      await client.close();
    });

    it("?toolsets=contact,location on the URL does the same by query", async () => {
      const client = await open({ url: withQuery("toolsets=contact,location") });
      expect(names((await client.listTools()).tools)).toEqual([
        "contact.import-csv",
        "contact.list",
        "contact.suppress",
        "location.finder",
        "location.list",
        "location.review-links",
      ]);
      expect(
        structured(await client.callTool({ name: "location.list", arguments: {} })).data.map(
          (l: { name: string }) => l.name,
        ),
      ).toEqual(["Toolset Street"]);
      await expect(client.callTool({ name: "review.list", arguments: {} })).rejects.toThrow(
        /Unknown tool: review\.list/,
      );
      await client.close();
    });

    it("X-MCP-Tools: review.list,contact.list lists and runs just those two", async () => {
      const client = await open({ headers: { "X-MCP-Tools": "review.list,contact.list" } });
      expect(names((await client.listTools()).tools)).toEqual(["contact.list", "review.list"]);
      expect(
        structured(await client.callTool({ name: "contact.list", arguments: {} })).data.map(
          (c: { email: string }) => c.email,
        ),
      ).toEqual(["toolsets@example.com"]);
      await expect(
        client.callTool({ name: "contact.suppress", arguments: { contactId: "x", reason: "y" } }),
      ).rejects.toThrow(/Unknown tool: contact\.suppress/);
      await client.close();
    });

    it("toolsets and single tools add up: ?toolsets=location with X-MCP-Tools: inbox.get", async () => {
      const client = await open({ url: withQuery("toolsets=location"), headers: { "X-MCP-Tools": "inbox.get" } });
      expect(names((await client.listTools()).tools)).toEqual([
        "inbox.get",
        "location.finder",
        "location.list",
        "location.review-links",
      ]);
      await client.close();
    });

    it("the scopes still apply inside a selection: a toolset the key reaches none of lists nothing", async () => {
      const client = await open({ headers: { "X-MCP-Toolsets": "campaign" } });
      expect(names((await client.listTools()).tools)).toEqual([]);
      await client.close();
    });
  });
}

describe("names that select nothing are refused", () => {
  it("an unknown toolset is 400 VALIDATION_ERROR naming it and the toolsets there are, on initialize (2025-11-25)", async () => {
    const res = await rawPost(initializeBody("2025-11-25"), {
      authorization: `Bearer ${key}`,
      "x-mcp-toolsets": "reviews,nope",
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      code: "VALIDATION_ERROR",
      error: "Unknown toolset: nope",
      details: { unknownToolsets: ["nope"] },
    });
    expect(body.details.toolsets).toEqual(
      expect.arrayContaining(["agent", "contact", "inbox", "location", "review", "survey"]),
    );
    expect(res.headers.get("mcp-session-id")).toBeNull();
  });

  it("2026-07-28: server/discover is answered; tools/list and tools/call are -32602 Invalid params naming it", async () => {
    const discover = await statelessAt("/mcp?toolsets=reviewz", "server/discover", {});
    expect(((await discover.json()) as any).result.supportedVersions).toContain("2026-07-28");
    const list = await statelessAt("/mcp?toolsets=reviewz", "tools/list", {});
    const listed = (await list.json()) as any;
    expect(listed.error).toMatchObject({
      code: -32602,
      message: "Unknown toolset: reviewz",
      data: { unknownToolsets: ["reviewz"] },
    });
    expect(listed.error.data.toolsets).toEqual(expect.arrayContaining(["contact", "review"]));
    const call = await statelessAt(
      "/mcp",
      "tools/call",
      { name: "review.list", arguments: {} },
      { "x-mcp-tools": "review.list,review.lst" },
    );
    expect(((await call.json()) as any).error).toMatchObject({ code: -32602, data: { unknownTools: ["review.lst"] } });
  });

  it("the SDK clients report the reason: the v2 client on tools/list, the v1 client on connect", async () => {
    const { client } = await connectV2({ token: key, headers: { "X-MCP-Toolsets": "nope" } });
    await expect(client.listTools()).rejects.toThrow(/Unknown toolset: nope/);
    await expect(connect({ token: key, headers: { "X-MCP-Toolsets": "nope" } })).rejects.toThrow(
      /Unknown toolset: nope/,
    );
  });
});

describe("on the wire", () => {
  it("a call outside the selection is the protocol's unknown-tool error, {code: -32602, message: Unknown tool: <name>}", async () => {
    const res = await statelessAt("/mcp?toolsets=review", "tools/call", { name: "location.list", arguments: {} });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Unknown tool: location.list" },
    });
  });

  it("the plural and any case name the same toolset; the list is sorted by code unit, not by locale", async () => {
    const list = async (toolsets: string) =>
      names(((await (await statelessAt(`/mcp?toolsets=${toolsets}`, "tools/list", {})).json()) as any).result.tools);
    expect(await list("Locations")).toEqual(await list("location"));
    const all = await list("contact,inbox,location,review,SLA,survey,white-label");
    expect(all).toEqual(ALL);
    expect(all).toEqual([...all].sort());
  });
});

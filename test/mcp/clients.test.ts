// One /mcp for every revision: the official v2 client (2026-07-28, stateless, and its legacy mode),
// the v1 client (2025-11-25) and raw sessions pinned to 2025-06-18 and 2025-03-26.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { connect, initializeBody, MCP_URL, mintTestKey, rawPost, workerFetch } from "./helpers";

let w: World;
let key = "";

beforeAll(async () => {
  w = await createWorld();
  await w.as("manager").post("/v1/locations", { name: "Every Revision Ave", city: "Springfield" });
  key = mintTestKey(w.tenantA.id, ["read:locations"]).token;
});

async function v2Client(mode: "legacy" | "auto" | { pin: string }) {
  const transport = new TransportV2(MCP_URL, {
    fetch: workerFetch,
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new ClientV2({ name: "v2-test", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return { client, transport };
}

const names = (tools: { name: string }[]) => tools.map((t) => t.name);

describe("clients of every revision list and call tools", () => {
  it("2026-07-28: the v2 SDK client pinned to the revision (server/discover, no session)", async () => {
    const { client, transport } = await v2Client({ pin: "2026-07-28" });
    expect(transport.sessionId).toBeUndefined();
    const { tools } = await client.listTools();
    expect(names(tools)).toEqual(["location.finder", "location.list", "location.review-links", "white-label.get"]);
    expect(tools[0]!.outputSchema).toBeDefined();
    const result = await client.callTool({ name: "location.list", arguments: {} });
    expect((result.structuredContent as any).data.map((l: any) => l.name)).toEqual(["Every Revision Ave"]);
    await client.close();
  });

  it("2026-07-28 by negotiation: the v2 client in auto mode picks the stateless revision", async () => {
    const { client, transport } = await v2Client("auto");
    expect(transport.sessionId).toBeUndefined();
    const result = await client.callTool({ name: "location.finder", arguments: { query: "Revision" } });
    expect((result.structuredContent as any).data[0].name).toBe("Every Revision Ave");
    await client.close();
  });

  it("2025-11-25: the v2 client in legacy mode and the v1 client open a session", async () => {
    const { client, transport } = await v2Client("legacy");
    expect(transport.sessionId).toMatch(new RegExp(`^${w.tenantA.id}\\.`));
    expect(names((await client.listTools()).tools)).toEqual([
      "location.finder",
      "location.list",
      "location.review-links",
      "white-label.get",
    ]);
    expect(((await client.callTool({ name: "location.list", arguments: {} })).structuredContent as any).total).toBe(1);
    await client.close();

    const v1 = await connect({ token: key });
    expect(v1.transport.protocolVersion).toBe("2025-11-25");
    const tools = (await v1.client.listTools()).tools;
    // one icon, the server's (serverInfo); a tool repeats none of it (docs/mcp.md, "What tools/list costs")
    expect(v1.client.getServerVersion()?.icons?.[0]?.mimeType).toBe("image/svg+xml");
    expect(tools[0]!.icons).toBeUndefined();
    expect(((await v1.client.callTool({ name: "location.list", arguments: {} })).structuredContent as any).total).toBe(
      1,
    );
  });

  for (const version of ["2025-06-18", "2025-03-26"]) {
    it(`${version}: initialize, tools/list and tools/call in a session`, async () => {
      const init = await rawPost(initializeBody(version), { authorization: `Bearer ${key}` });
      expect(((await init.json()) as any).result.protocolVersion).toBe(version);
      const headers = {
        authorization: `Bearer ${key}`,
        "mcp-session-id": init.headers.get("mcp-session-id")!,
        "mcp-protocol-version": version,
      };
      const list = (await (await rawPost({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers)).json()) as any;
      expect(names(list.result.tools)).toEqual([
        "location.finder",
        "location.list",
        "location.review-links",
        "white-label.get",
      ]);
      // 2025-03-26 has no Tool.title: its clients show annotations.title; later revisions read title itself
      const listed = list.result.tools.find((t: any) => t.name === "location.list");
      expect(listed.title).toBe("List locations");
      expect(listed.annotations.title).toBe(version === "2025-03-26" ? "List locations" : undefined);
      const call = (await (
        await rawPost(
          { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "location.list", arguments: {} } },
          headers,
        )
      ).json()) as any;
      expect(call.result.structuredContent.data[0].name).toBe("Every Revision Ave");
    });
  }
});

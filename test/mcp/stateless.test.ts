import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { BASE, mintTestKey, rawPost } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
  await w.as("manager").post("/v1/locations", { name: "Stateless Street", city: "Springfield" });
});

const V = "2026-07-28";
let nextId = 1;

/** A 2026-07-28 request as the conformance suite's stateless client sends it. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  o: { token?: string; capabilities?: object; headers?: Record<string, string> } = {},
) {
  const name = method === "tools/call" ? (params.name as string) : undefined;
  const headers: Record<string, string> = {
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
    ...o.headers,
  };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": { name: "vitest", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": o.capabilities ?? {},
      },
    },
  };
  return rawPost(body, headers);
}

describe("2026-07-28: stateless requests", () => {
  it("server/discover lists the revisions and capabilities, with cache hints", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await modern("server/discover", {}, { token: key.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = (await res.json()) as any;
    expect(body.result.supportedVersions).toContain(V);
    expect(body.result.capabilities.tools).toBeDefined();
    expect(body.result.resultType).toBe("complete");
    expect(typeof body.result.ttlMs).toBe("number");
  });

  it("tools/list without initialize: the caller's tools with outputSchema, ttlMs and cacheScope private", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await modern("tools/list", {}, { token: key.token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.result.tools.map((t: any) => t.name)).toEqual([
      "location.finder",
      "location.list",
      "location.review-links",
      "white-label.get",
    ]);
    expect(body.result.cacheScope).toBe("private");
    expect(body.result.ttlMs).toBe(300000);
    for (const t of body.result.tools) {
      expect(t.outputSchema.type).toBe("object");
      expect(t.annotations.readOnlyHint).toBe(true);
      expect(t.icons).toBeUndefined(); // the server's icon (server/discover) stands for every tool
    }
    expect(res.headers.get("ratelimit-policy")).toBe('"mcp";q=1000;w=900');
  });

  it("tools/call returns structuredContent and a text block", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await modern("tools/call", { name: "location.list", arguments: { limit: 5 } }, { token: key.token });
    const body = (await res.json()) as any;
    expect(body.result.isError).toBeFalsy();
    expect(body.result.structuredContent.data.length).toBeGreaterThan(0);
    expect(body.result.structuredContent.data.every((l: any) => l.tenantId === w.tenantA.id)).toBe(true);
    expect(JSON.parse(body.result.content[0].text)).toEqual(body.result.structuredContent);
  });

  it("without a credential: 401 with the resource metadata challenge", async () => {
    const res = await modern("tools/list");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
    );
  });

  it("an unsupported revision in the envelope is -32022 with the supported list", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await rawPost(
      {
        jsonrpc: "2.0",
        id: 99,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2099-01-01",
            "io.modelcontextprotocol/clientInfo": { name: "x", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
      { authorization: `Bearer ${key.token}`, "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toContain(V);
  });

  it("an Mcp-Method header that does not match the body is refused", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const res = await modern("tools/list", {}, { token: key.token, headers: { "mcp-method": "tools/call" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBeDefined();
  });
});

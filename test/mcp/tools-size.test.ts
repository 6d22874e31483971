import { beforeAll, expect, it } from "vitest";
import { API_SCOPES } from "../../src/modules/identity/scopes";
import { SESSION_PROTOCOL_VERSIONS } from "../../src/modules/mcp/config";
import { allSkills } from "../../src/modules/mcp/skills/registry";
import { createWorld, type World } from "../helpers/seed";
import { initializeBody, rawPost, statelessRequest } from "./helpers";

// What an assistant pays to read the tools (issue #47; docs/mcp.md, "What tools/list costs"): every
// client puts the whole tools/list into its model's context on every turn. The list a tenant_admin's API
// key with every scope sees, as the Worker serves it (the compact JSON of `tools`), stays within
// BUDGET_BYTES on both protocol legs. Over it, trim the catalogue (descriptions, schemas: docs/mcp.md
// says how) rather than raise the budget. `npm run mcp:tools-size` measures the same list per toolset.

const BUDGET_BYTES = 75_000;

let w: World;
let key = "";
/** the tools an API key is offered: all but the agency-session, platform-admin and signed-in-user-only ones */
const offered = () => allSkills().filter((s) => !s.agencyOnly && !s.platformOnly && !s.callers).length;
const bytes = (tools: unknown) => new TextEncoder().encode(JSON.stringify(tools)).length;

beforeAll(async () => {
  w = await createWorld();
  const res = await w.as("tenantAdmin").post("/v1/api-keys", { name: "every scope", scopes: [...API_SCOPES] });
  expect(res.status).toBe(201);
  key = res.body.key;
});

it(`2026-07-28: tools/list for an API key with every scope is at most ${BUDGET_BYTES} bytes`, async () => {
  const res = await statelessRequest(key, "/mcp", "tools/list", {});
  const tools = ((await res.json()) as { result: { tools: unknown[] } }).result.tools;
  expect(tools.length).toBe(offered());
  console.log(`tools/list: ${bytes(tools)} bytes`);
  expect(bytes(tools)).toBeLessThanOrEqual(BUDGET_BYTES);
});

// every revision the session leg serves: 2025-03-26 lists each tool's title again as annotations.title (~1.2 KB)
it.each([...SESSION_PROTOCOL_VERSIONS])(
  `%s session: the same list is at most ${BUDGET_BYTES} bytes`,
  async (version) => {
    const auth = { authorization: `Bearer ${key}` };
    const init = await rawPost(initializeBody(version), auth);
    expect(init.status).toBe(200);
    const session = {
      ...auth,
      "mcp-session-id": init.headers.get("mcp-session-id")!,
      "mcp-protocol-version": version,
    };
    await rawPost({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
    const res = await rawPost({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, session);
    const tools = ((await res.json()) as { result: { tools: unknown[] } }).result.tools;
    expect(tools.length).toBe(offered());
    console.log(`tools/list: ${bytes(tools)} bytes`);
    expect(bytes(tools)).toBeLessThanOrEqual(BUDGET_BYTES);
  },
);

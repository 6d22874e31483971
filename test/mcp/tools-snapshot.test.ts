import { beforeAll, expect, it } from "vitest";
import { ALL_SCOPES } from "../../src/modules/oauth/scopes";
import { canonical, mcpToolsSurface, schemaFields } from "../helpers/public-surface";
import { createWorld, type World } from "../helpers/seed";
import { connectV2, mintTestKey } from "./helpers";

// MCP tools/list against a committed snapshot: every tool's name, title, description, input and output
// schema, annotations, the field names those schemas hold ($refs resolved: `fields`, so a renamed or
// removed field shows plainly whatever shape the schemas take), and who may see it. Moving a tool into
// the catalogue must leave it as it was; a deliberate change updates test/fixtures/surface/mcp-tools.json
// in the same commit (`npx vitest run --project workers test/mcp/tools-snapshot.test.ts -u`).

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

it("every MCP tool is the committed one", async () => {
  const tools = mcpToolsSurface();
  expect(tools.length).toBeGreaterThan(40);
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot("../fixtures/surface/mcp-tools.json");
});

it("the snapshot is what tools/list serves (an API key with every scope)", async () => {
  const { token } = mintTestKey(w.tenantA.id, [...ALL_SCOPES]);
  const { client } = await connectV2({ token });
  const served = (await client.listTools()).tools;
  const byName = new Map(mcpToolsSurface().map((t) => [t.name, t]));
  expect(served.length).toBeGreaterThan(30);
  for (const tool of served) {
    const { name, title, description, inputSchema, outputSchema, annotations } = tool as Record<string, unknown>;
    const listed = byName.get(name as string);
    expect(listed, `${name} is served but not in the snapshot`).toBeDefined();
    const { access: _access, ...entry } = listed!;
    const fields = { input: schemaFields(inputSchema as never), output: schemaFields(outputSchema as never) };
    expect(
      canonical({ name, title, description, inputSchema, outputSchema, annotations, fields }),
      name as string,
    ).toEqual(entry);
  }
});

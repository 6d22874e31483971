import { expect, it } from "vitest";
import { agentToolsSurface } from "../helpers/public-surface";

// The agents' tools against a committed snapshot: each name, description, parameters and admitting
// scopes, as the agents' models are offered them. Moving a tool into the catalogue must leave it as it
// was; a deliberate change updates test/fixtures/surface/agent-tools.json in the same commit
// (`npx vitest run --project workers test/agents/tools-snapshot.test.ts -u`).

it("the agent tools are the committed ones", async () => {
  const tools = agentToolsSurface();
  expect(tools.map((t) => t.name)).toContain("review.get");
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot("../fixtures/surface/agent-tools.json");
});

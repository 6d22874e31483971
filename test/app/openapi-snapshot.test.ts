import { expect, it } from "vitest";
import { openApiSurface } from "../helpers/public-surface";

// The OpenAPI document's public names against a committed snapshot (docs/ARCHITECTURE.md, "How to add
// an operation"): every path and method with its operationId, tags, security, parameters and the
// request and response schemas by name. Moving an operation into the catalogue must leave it as it
// was; a deliberate change updates test/fixtures/surface/openapi.json in the same commit
// (`npx vitest run --project workers test/app/openapi-snapshot.test.ts -u`), and the diff says what changed.

it("the OpenAPI document's operations and schema names are the committed ones", async () => {
  const surface = openApiSurface() as { operations: Record<string, unknown> };
  expect(Object.keys(surface.operations).length).toBeGreaterThan(250);
  await expect(`${JSON.stringify(surface, null, 2)}\n`).toMatchFileSnapshot("../fixtures/surface/openapi.json");
});

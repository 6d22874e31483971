import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { API_INFO, createApp } from "../../src/app";

// The same document /docs/openapi.json serves, validated by a real OpenAPI 3.1 validator
// (it reads its JSON schemas from disk, which workerd does not offer, hence this node project).
describe("OpenAPI 3.1 document", () => {
  it("passes the OpenAPI 3.1 schema validator", async () => {
    const doc = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO });
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(doc.paths ?? {}).length).toBeGreaterThan(5);
  });
});

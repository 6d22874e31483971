import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp, openApiConfig } from "../../src/app";

// The same document /docs/openapi.json serves, validated by a real OpenAPI 3.1 validator
// (it reads its JSON schemas from disk, which workerd does not offer, hence this node project).
describe("OpenAPI 3.1 document", () => {
  it("passes the OpenAPI 3.1 schema validator", async () => {
    const doc = createApp().getOpenAPI31Document(openApiConfig("https://reputation-ops.example.com", "production"));
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(doc.paths ?? {}).length).toBeGreaterThan(5);
  });

  it("documents the spec's protocol endpoints served outside OpenAPIHono, with their content types", () => {
    const doc = createApp().getOpenAPI31Document(
      openApiConfig("https://reputation-ops.example.com", "production"),
    ) as any;
    const op = (method: string, path: string) => doc.paths?.[path]?.[method];
    for (const [method, path] of [
      ["post", "/mcp"],
      ["get", "/mcp/skills"],
      ["get", "/skills"],
      ["get", "/mcp/health"],
      ["get", "/oauth/authorize"],
      ["post", "/oauth/token"],
      ["get", "/docs"],
      ["get", "/docs/openapi.json"],
    ] as const) {
      expect(op(method, path), `${method} ${path}`).toBeDefined();
    }
    expect(Object.keys(op("post", "/mcp").requestBody.content)).toEqual(["application/json"]);
    expect(Object.keys(op("post", "/mcp").responses[200].content).sort()).toEqual([
      "application/json",
      "text/event-stream",
    ]);
    expect(Object.keys(op("post", "/oauth/token").requestBody.content)).toEqual(["application/x-www-form-urlencoded"]);
    expect(op("post", "/oauth/token").responses[200].content["application/json"]).toBeDefined();
    expect(Object.keys(op("get", "/oauth/authorize").responses[200].content)).toEqual(["text/html"]);
    expect(Object.keys(op("get", "/docs").responses[200].content)).toEqual(["text/html"]);
    expect(op("get", "/oauth/authorize").parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["client_id", "redirect_uri", "code_challenge", "code_challenge_method"]),
    );
    expect(op("get", "/mcp/health")["x-protocol"]).toBe("mcp");
  });
});

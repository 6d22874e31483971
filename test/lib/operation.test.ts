import { z } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import { describe, expect, it } from "vitest";
import type { ApiError } from "../../src/lib/errors";
import { hasRest } from "../../src/lib/has-rest";
import { PageQuerySchema } from "../../src/lib/openapi";
import {
  agentInputOf,
  checkedInput,
  defineOperation,
  fromMcpInput,
  jsonField,
  mcpInputOf,
} from "../../src/lib/operation";
import { routeConfigOf } from "../../src/lib/operation-route";
import { scopesForRequest } from "../../src/modules/identity/scopes";
import { OPERATIONS } from "../../src/wiring";
import { operations } from "../helpers/openapi";

// One definition per operation (src/lib/operation.ts): the doors' inputs are derived from the REST
// schemas in one place, and each operation's declared scopes are the REST scope table's.

const Query = PageQuerySchema.extend({
  active: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
  rating: z.coerce.number().int().min(1).max(5).optional(),
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
}).refine((q) => !q.from || !q.to || q.from <= q.to, { message: "from after to", path: ["from"] });

const op = defineOperation({
  name: "thing.mark",
  operationId: "markThing",
  method: "post",
  path: "/v1/things/{id}/mark",
  tags: ["Things"],
  summary: "Mark a thing",
  request: {
    params: z.object({ id: z.string().min(1).max(64) }),
    query: Query,
    body: z.object({ manual: z.boolean().optional(), note: z.string().max(10).optional() }),
  },
  output: z.object({ ok: z.boolean() }),
  scopes: [],
  access: "write",
  confirm: (i) => `Mark ${i.id}?`,
  mcp: {
    title: "Mark",
    scopes: ["write:reviews"],
    rename: { id: "thingId" },
    fixed: { manual: true },
    limit: { default: 5, max: 20 },
    describe: { note: "a short note" },
  },
  agent: { scopes: ["read:reviews"], defaults: { rating: 3 } },
  handler: async () => ({ ok: true }),
});

const json = (s: z.ZodType) => {
  const { $schema: _s, ...rest } = z.toJSONSchema(s, { io: "input", unrepresentable: "any" }) as Record<string, any>;
  return rest;
};

describe("the doors' input, derived from the REST schemas", () => {
  it("undoes the query-string coercions: a number is a JSON number, 'true'/'false' a boolean", () => {
    expect(json(jsonField(Query.shape.rating))).toEqual({ type: "integer", minimum: 1, maximum: 5 });
    expect(jsonField(Query.shape.rating).safeParse("3").success).toBe(false);
    expect(json(jsonField(Query.shape.active))).toEqual({ type: "boolean" });
    expect(jsonField(Query.shape.active).parse(false)).toBe(false);
    expect(json(jsonField(Query.shape.limit))).toEqual({ type: "integer", minimum: 1, maximum: 200, default: 50 });
    // anything else is the REST field itself
    expect(jsonField(Query.shape.from)).toBe(Query.shape.from);
  });

  it("MCP: the REST fields under the door's names, with its page size; fixed fields are not offered", () => {
    const input = json(mcpInputOf(op));
    expect(Object.keys(input.properties).sort()).toEqual([
      "active",
      "cursor",
      "from",
      "limit",
      "note",
      "rating",
      "thingId",
      "to",
    ]);
    expect(input.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 20, default: 5 });
    expect(input.properties.note).toMatchObject({ type: "string", maxLength: 10, description: "a short note" });
    expect(input.required).toEqual(["thingId"]);
    expect(fromMcpInput(op, { thingId: "t1", note: "n" })).toEqual({ id: "t1", note: "n", manual: true });
  });

  it("the REST objects' own rules hold at every door (a 400 VALIDATION_ERROR)", () => {
    expect(() => checkedInput(op, { id: "t1", from: "2026-02-01", to: "2026-01-01" })).toThrowError(
      /Invalid|from after to/,
    );
    expect(checkedInput(op, { id: "t1", from: "2026-01-01", to: "2026-02-01" })).toMatchObject({ id: "t1", limit: 50 });
  });

  it("agents: the JSON input with the agent door's defaults", () => {
    expect(agentInputOf(op).parse({ id: "t1" })).toMatchObject({ id: "t1", rating: 3, limit: 50 });
  });

  it("REST: the route the OpenAPI document shows, with the operationId and the role guard", () => {
    const route = routeConfigOf(op) as unknown as Record<string, any>;
    expect(route).toMatchObject({
      operationId: "markThing",
      method: "post",
      path: "/v1/things/{id}/mark",
      tags: ["Things"],
      summary: "Mark a thing",
    });
    expect(Object.keys(route.responses)).toEqual(["200"]);
    expect(route.request.body.required).toBe(true);
    expect(route.middleware).toBeUndefined();
    expect(routeConfigOf({ ...op, minRole: "manager" }).middleware).toHaveLength(1);
  });

  it("REST: a body past the operation's cap is 413 PAYLOAD_TOO_LARGE with its message and details", async () => {
    const capped = (details?: Record<string, unknown>) =>
      routeConfigOf({ ...op, request: { ...op.request, bodyLimit: { bytes: 10, message: "too big", details } } });
    const answer = async (route: ReturnType<typeof routeConfigOf>, body: string) => {
      const app = new Hono();
      for (const m of route.middleware as MiddlewareHandler[]) app.use("/x", m);
      app.post("/x", (c) => c.text("ok"));
      app.onError((e, c) =>
        c.json({ code: (e as ApiError).code, message: e.message, details: (e as ApiError).details }),
      );
      return (await app.request("/x", { method: "POST", body })).json();
    };
    expect(await answer(capped({ reason: "file_too_large" }), "x".repeat(11))).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      message: "too big",
      details: { reason: "file_too_large" },
    });
    expect(await answer(capped(), "x".repeat(11))).toEqual({ code: "PAYLOAD_TOO_LARGE", message: "too big" });
  });
});

describe("the catalogue (src/wiring.ts OPERATIONS)", () => {
  const rest = OPERATIONS.filter(hasRest);

  it("each REST operation's scopes are the REST scope table's for its method and path", () => {
    const disagree = rest.filter(
      (o) =>
        JSON.stringify([...o.scopes].sort()) !==
        JSON.stringify([...scopesForRequest(o.method, o.path.replace(/\{[^}]+\}/g, "x"))].sort()),
    );
    expect(disagree.map((o) => `${o.name}: ${o.scopes} != ${scopesForRequest(o.method, o.path)}`)).toEqual([]);
  });

  it("names are unique; operationIds and method + path are unique among the REST operations", () => {
    expect(new Set(OPERATIONS.map((o) => o.name)).size).toBe(OPERATIONS.length);
    expect(new Set(rest.map((o) => o.operationId)).size).toBe(rest.length);
    expect(new Set(rest.map((o) => `${o.method} ${o.path}`)).size).toBe(rest.length);
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(50);
  });

  it("an operation without a REST door opens another one; a variant names a REST operation of the catalogue or the document", () => {
    expect(OPERATIONS.filter((o) => !hasRest(o) && !o.mcp && !o.agent && !o.console).map((o) => o.name)).toEqual([]);
    const documented = new Set(operations().map((o) => o.op.operationId));
    const unknown = OPERATIONS.filter((o) => o.variantOf && !documented.has(o.variantOf.operationId));
    expect(unknown.map((o) => `${o.name} -> ${o.variantOf!.operationId}`)).toEqual([]);
  });
});

import { z } from "@hono/zod-openapi";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { describe, expect, it } from "vitest";
import { compactInputSchema, compactOutputSchema } from "../../src/lib/compact-schema";

// src/lib/compact-schema.ts: a compacted tool schema accepts exactly the values zod's JSON Schema
// accepts (checked with the validator the MCP server itself uses), except what an output schema
// deliberately leaves out (additionalProperties: false, a `required` naming every property).

type Json = Record<string, any>;
const json = (s: z.ZodType, io: "input" | "output") => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Json;
  return rest;
};
const validator = new CfWorkerJsonSchemaValidator();
const accepts = (schema: Json, value: unknown) => validator.getValidator(schema as never)(value).valid;

const Template = z.object({ id: z.string(), channel: z.enum(["email", "sms"]), body: z.string().nullable() });
const Output = z.object({
  id: z.string(),
  status: z.enum(["new", "done"]).nullable(),
  count: z.number().int(),
  day: z.iso.date(),
  meta: z.record(z.string(), z.unknown()),
  template: Template,
  previous: Template.nullable(),
  steps: z.array(z.object({ template: Template.nullable(), note: z.string().optional() })),
});
const Input = z.object({
  id: z.string().min(1).max(64),
  since: z.iso.datetime({ offset: true }).optional(),
  userId: z.string().nullable(),
  confirm: z.union([z.string().max(200), z.boolean()]).optional(),
  limit: z.number().int().min(1).max(100).default(25),
});

const template = { id: "t1", channel: "email", body: null };
const good = {
  id: "a",
  status: null,
  count: 3,
  day: "2026-11-28",
  meta: { any: [1] },
  template,
  previous: null,
  steps: [{ template: null }, { template, note: "n" }],
};

describe("compactOutputSchema", () => {
  const full = json(Output, "output");
  const compact = compactOutputSchema(full);

  it("is shorter, names the same fields, and writes a repeated object once under $defs", () => {
    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(full).length * 0.7);
    expect(Object.keys(compact.properties)).toEqual(Object.keys(full.properties));
    expect(compact.$defs?.template?.properties).toEqual({
      id: { type: "string" },
      channel: { enum: ["email", "sms"] },
      body: { type: ["string", "null"] },
    });
    expect(compact.properties.previous).toEqual({ anyOf: [{ $ref: "#/$defs/template" }, { type: "null" }] });
    expect(compact.properties.status).toEqual({ enum: ["new", "done", null] });
    expect(compact.properties.count).toEqual({ type: "integer" });
    expect(compact.properties.meta).toEqual({ type: "object" });
    // an object with an optional field keeps its `required`
    expect(compact.properties.steps.items.required).toEqual(["template"]);
    expect(compact.required).toBeUndefined();
  });

  it("accepts and refuses what the full schema does", () => {
    const values: unknown[] = [
      good,
      { ...good, status: "done", previous: template },
      { ...good, status: "open" },
      { ...good, count: 1.5 },
      { ...good, template: { ...template, channel: "fax" } },
      { ...good, previous: { ...template, body: 3 } },
      { ...good, steps: [{ template: { ...template, id: 1 } }] },
      { ...good, meta: "x" },
    ];
    for (const v of values) expect(accepts(compact, v), JSON.stringify(v)).toBe(accepts(full, v));
    expect(accepts(compact, good)).toBe(true);
    expect(accepts(compact, { ...good, status: "open" })).toBe(false);
  });

  it("is looser only where it says: an extra or a missing field", () => {
    const { count: _count, ...missing } = good;
    expect([accepts(full, missing), accepts(compact, missing)]).toEqual([false, true]);
    expect([accepts(full, { ...good, extra: 1 }), accepts(compact, { ...good, extra: 1 })]).toEqual([false, true]);
  });
});

describe("compactInputSchema", () => {
  const full = json(Input, "input");
  const compact = compactInputSchema(full);

  it("keeps required, bounds and defaults, uses no $ref, and merges plain unions into type lists", () => {
    expect(compact.required).toEqual(full.required);
    expect(compact.properties.limit).toEqual(full.properties.limit);
    expect(compact.properties.userId).toEqual({ type: ["string", "null"] });
    expect(compact.properties.confirm).toEqual({ type: ["string", "boolean"], maxLength: 200 });
    expect(compact.properties.since).toEqual({ type: "string", format: "date-time" });
    expect(JSON.stringify(compact)).not.toContain("$ref");
  });

  it("accepts and refuses what the full schema does (a date-time's pattern aside: the format says it)", () => {
    const values: unknown[] = [
      { id: "a", userId: null },
      { id: "a", userId: "u", confirm: true, limit: 100 },
      { id: "a", userId: "u", confirm: "x".repeat(201) },
      { id: "", userId: null },
      { id: "a", userId: 1 },
      { id: "a", userId: null, limit: 101 },
      { id: "a", userId: null, confirm: 3 },
      { userId: null },
    ];
    for (const v of values) expect(accepts(compact, v), JSON.stringify(v)).toBe(accepts(full, v));
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { installCatalogue } from "../../src/lib/catalogue";
import type { Operation } from "../../src/lib/operation";
import { agentTools, readSkillNames, toolOperation, toolSpec } from "../../src/modules/agents/tools";
import { operationOf } from "../../src/modules/mcp/skills/operation";
import { findSkill, inputJsonSchema, registerSkills } from "../../src/modules/mcp/skills/registry";
import { WIRING } from "../../src/wiring";
import { deref, type OperationRef, operations } from "../helpers/openapi";

// One definition of each operation (src/lib/operation.ts): every MCP tool and agent tool is derived
// from an operation of the catalogue, so a tool and its REST route cannot disagree. A tool that must
// differ from its REST twin (the spec's vocabulary, another answer) is a second operation naming the
// twin (`variantOf`, with why): a field it shares with the twin must accept the same values there
// (type, enum, format, pattern, numeric bounds), compared on the JSON Schemas the clients see.

type Json = Record<string, any>;

/** The value domain of a field; descriptions, defaults and length caps of free-text ids are left out. */
function domain(s: Json | undefined): Json {
  const x = deref(s as never) as Json | undefined;
  if (!x) return {};
  if (x.anyOf) return { anyOf: x.anyOf.map(domain).filter((d: Json) => d.type !== "null") };
  // a query string carries a boolean as "true"/"false": the same domain as a JSON boolean
  if (x.type === "string" && JSON.stringify([...(x.enum ?? [])].sort()) === '["false","true"]')
    return { type: "boolean" };
  const out: Json = {};
  for (const k of ["type", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
    if (x[k] !== undefined) out[k] = x[k];
  // a format is the domain; generators differ on whether they also spell it as a pattern
  if (out.format) delete out.pattern;
  // nullable ("null: every site") says the field may be absent, not that its values differ
  if (Array.isArray(out.type)) out.type = out.type.filter((t: string) => t !== "null").join();
  if (x.enum) out.enum = [...x.enum].filter((v: unknown) => v !== null).sort();
  if (x.const !== undefined) out.enum = [x.const];
  if (x.items) out.items = domain(x.items);
  return out;
}

/** Every named input of a REST operation: path and query parameters, JSON body properties. */
function restFields(o: OperationRef): Map<string, Json> {
  const fields = new Map<string, Json>();
  for (const p of o.op.parameters ?? []) if (p.in === "query" || p.in === "path") fields.set(p.name, p.schema as Json);
  const body = deref((o.op.requestBody as Json | undefined)?.content?.["application/json"]?.schema);
  for (const [name, schema] of Object.entries((body as Json | undefined)?.properties ?? {}))
    fields.set(name, schema as Json);
  return fields;
}

const twinOf = (operationId: string) => {
  const found = operations().find((o) => o.op.operationId === operationId);
  if (!found) throw new Error(`no ${operationId} in the document`);
  return found;
};

/** Page size and cursor are per surface (an MCP answer must fit a model's context; a tool collects pages). */
const PAGING = new Set(["limit", "cursor"]);

/** Fields that mean one thing wherever they appear (channel and rating do not: consent has channels messages lack, and an ingested rating may be fractional). */
const SHARED = ["siteType", "sentiment", "interval"];

/** Every MCP tool's and agent tool's input as clients see it, with the operation it comes from. */
function inputsOfSkillsAndTools(): Map<string, { schema: Json; op: Operation | undefined }> {
  const out = new Map<string, { schema: Json; op: Operation | undefined }>();
  for (const s of WIRING.skills) out.set(`skill ${s.name}`, { schema: inputJsonSchema(s), op: operationOf(s) });
  for (const t of agentTools())
    out.set(`tool ${t.name}`, { schema: toolSpec(t.name).parameters as Json, op: toolOperation(t.name) });
  return out;
}

describe("one definition of each input", () => {
  beforeAll(() => {
    installCatalogue(WIRING.operations);
    registerSkills(WIRING.skills);
  });

  it("every MCP tool and agent tool is derived from an operation of the catalogue", () => {
    const notDerived = [...inputsOfSkillsAndTools()]
      .filter(([, { op }]) => !op || !WIRING.operations.includes(op))
      .map(([label]) => label);
    expect(notDerived).toEqual([]);
    // the derived MCP tool's inputSchema is the operation's REST fields (less the door's own changes)
    const listed = operationOf(WIRING.skills.find((s) => s.name === "contact.list")!)!;
    expect(Object.keys(inputJsonSchema(findSkill("contact.list")!).properties as object).sort()).toEqual(
      Object.keys(listed.jsonInput.shape).sort(),
    );
    expect(readSkillNames()).toContain("review.list");
  });

  it("a variant's field accepts the same values as the same field of its REST twin", () => {
    const mismatches: string[] = [];
    let compared = 0;
    for (const [label, { schema, op }] of inputsOfSkillsAndTools()) {
      if (!op?.variantOf) continue;
      const rest = restFields(twinOf(op.variantOf.operationId));
      for (const [field, s] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        if (!rest.has(field) || PAGING.has(field)) continue;
        compared++;
        const [a, b] = [domain(s), domain(rest.get(field))];
        if (JSON.stringify(a) !== JSON.stringify(b))
          mismatches.push(
            `${label}.${field} ${JSON.stringify(a)} != ${op.variantOf.operationId} ${field} ${JSON.stringify(b)}`,
          );
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(5);
  });

  it("shared fields (siteType, sentiment, interval) have one value domain across REST, skills and tools", () => {
    const seen = new Map<string, Map<string, string[]>>();
    const note = (field: string, where: string, s: Json) => {
      const key = JSON.stringify(domain(s).items ?? domain(s));
      const byDomain = seen.get(field) ?? new Map<string, string[]>();
      byDomain.set(key, [...(byDomain.get(key) ?? []), where]);
      seen.set(field, byDomain);
    };
    for (const o of operations())
      for (const [field, s] of restFields(o)) if (SHARED.includes(field)) note(field, `${o.method} ${o.path}`, s);
    for (const [label, { schema }] of inputsOfSkillsAndTools()) {
      for (const [field, s] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
        if (SHARED.includes(field)) note(field, label, s);
    }
    const split = [...seen]
      .filter(([, byDomain]) => byDomain.size > 1)
      .map(([field, byDomain]) => `${field}: ${JSON.stringify(Object.fromEntries(byDomain))}`);
    expect(split).toEqual([]);
    expect(seen.get("siteType")?.size).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import { findTool, ownToolNames, readSkillNames, toolOperation, toolSpec } from "../../src/modules/agents/tools";
import { operationOf } from "../../src/modules/mcp/skills/operation";
import { allSkills, findSkill, inputJsonSchema } from "../../src/modules/mcp/skills/registry";
import { deref, type OperationRef, operations } from "../helpers/openapi";

// One definition of each operation (src/lib/operation.ts). A skill or agent tool with a REST twin is
// derived from the twin's operation object, so the two cannot disagree: checked here by identity
// (structural). The few twins that are truly different operations (DISTINCT, with the reason) are
// still written by hand: a field they share with the REST route must accept the same values there
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

const op = (method: string, path: string) => {
  const found = operations().find((o) => o.method === method && o.path === path);
  if (!found) throw new Error(`no ${method} ${path} in the document`);
  return found;
};

/** Each skill or tool and the REST operation it is the twin of (same service, same filters). */
const TWINS: Record<string, [string, string]> = {
  "review.list": ["get", "/v1/reviews"],
  "review.summary": ["get", "/v1/analytics/reviews"],
  "inbox.list": ["get", "/v1/inbox"],
  "survey.list": ["get", "/v1/surveys"],
  "recommendation.list": ["get", "/v1/recommendations"],
  "campaign.list": ["get", "/v1/campaigns"],
  "contact.list": ["get", "/v1/contacts"],
  "contact.suppress": ["post", "/v1/contacts/{id}/suppress"],
  "location.list": ["get", "/v1/locations"],
  "competitor.list": ["get", "/v1/competitors"],
  "approval.list-pending": ["get", "/v1/responses/approval-queue"],
  "response.mark-published": ["post", "/v1/responses/{id}/publish"],
  "analytics.funnel": ["get", "/v1/analytics/funnel"],
  "analytics.reviews": ["get", "/v1/analytics/reviews"],
  "analytics.responses": ["get", "/v1/analytics/responses"],
  "reviews.search": ["get", "/v1/reviews"],
  "experiment.list": ["get", "/v1/experiments"],
  "sla.overdue": ["get", "/v1/responses/overdue"],
  "compliance.config": ["get", "/v1/compliance"],
  "brand.get": ["get", "/v1/brands/{id}"],
  "review.get": ["get", "/v1/reviews/{id}"],
};

/**
 * Twins that are different operations, each with why; every other twin must be derived from its operation.
 * They stay hand-written MCP skills or agent tools over the same service, held to REST by the value check below.
 */
const DISTINCT: Record<string, string> = {
  "review.list":
    "the spec's MCP input is rating (exact) and since (a date-time); GET /v1/reviews takes ratingMin/ratingMax/dateFrom/dateTo",
  "review.summary":
    "one summary (average, distribution by rating and site) where GET /v1/analytics/reviews answers a series from rollups",
  "reviews.search":
    "an agent's collector: up to 500 reviews of a window across pages, where GET /v1/reviews answers one page",
  "recommendation.list":
    "the spec's MCP answer is {data} of a skill's projection; GET /v1/recommendations answers a cursor page of records",
  "competitor.list":
    "the MCP answer carries bySite and siteIds per competitor, unpaged; GET /v1/competitors answers a cursor page of records",
  "approval.list-pending":
    "the MCP answer is {data, total} with the spec's limit (max 100); GET /v1/responses/approval-queue answers a bare array",
  "brand.get":
    "brandId is optional (none: the tenant's default, oldest brand, what a template generator writes for); GET /v1/brands/{id} needs the id",
  "review.get":
    "the review with its brand's voice and tone and its location's contact (what a reply drafter needs in one call); GET /v1/reviews/{id} answers the review",
};

/**
 * Hand-written agent tools with no REST twin at all, each with why: nothing to derive them from. A new
 * agent tool is either derived (toolOf, or a read MCP tool), a DISTINCT twin, or listed here.
 */
const AGENT_ONLY: Record<string, string> = {
  "analytics.send-timing":
    "no REST route: conversion by hour and weekday of sending is computed for the campaign strategist only",
  "template.tokens":
    "no REST route: the {{tokens}} a template may use (built-in and the tenant's location variables) for the agents that write templates",
};

/** The operation a skill or agent tool was derived from, if any. */
const derivedFrom = (name: string) => {
  const s = findSkill(name);
  return (s && operationOf(s)) ?? toolOperation(name);
};

/** Page size and cursor are per surface (an MCP answer must fit a model's context; a tool collects pages). */
const PAGING = new Set(["limit", "cursor"]);

/** Fields that mean one thing wherever they appear (channel and rating do not: consent has channels messages lack, and an ingested rating may be fractional). */
const SHARED = ["siteType", "sentiment", "interval"];

function inputsOfSkillsAndTools(): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const s of allSkills()) out.set(`skill ${s.name}`, inputJsonSchema(s));
  for (const name of [
    "analytics.funnel",
    "analytics.reviews",
    "analytics.responses",
    "analytics.send-timing",
    "reviews.search",
    "brand.get",
    "review.get",
  ]) {
    if (findTool(name)) out.set(`tool ${name}`, toolSpec(name).parameters as Json);
  }
  return out;
}

describe("one definition of each input", () => {
  it("every skill or agent tool with a REST twin is derived from the twin's operation, unless it is a distinct operation", () => {
    const notDerived: string[] = [];
    for (const [name, [method, path]] of Object.entries(TWINS)) {
      const from = derivedFrom(name);
      if (DISTINCT[name]) {
        expect(from, `${name} is listed as distinct but is derived`).toBeUndefined();
        continue;
      }
      if (!from) notDerived.push(name);
      else expect(`${from.method} ${from.path}`, name).toBe(`${method} ${path}`);
    }
    expect(notDerived).toEqual([]);
    // the derived MCP tool's inputSchema is the operation's REST fields (less the door's own changes)
    const listed = operationOf(findSkill("contact.list")!)!;
    expect(Object.keys(inputJsonSchema(findSkill("contact.list")!).properties as object).sort()).toEqual(
      Object.keys(listed.jsonInput.shape).sort(),
    );
  });

  it("every agent tool is derived from an operation, a DISTINCT twin, or an agent-only tool with a reason", () => {
    const unclassified = ownToolNames().filter((name) => !derivedFrom(name) && !DISTINCT[name] && !AGENT_ONLY[name]);
    expect(unclassified).toEqual([]);
    // the agent-only ones are hand-written indeed, and have no twin
    for (const name of Object.keys(AGENT_ONLY)) {
      expect(findTool(name), name).toBeDefined();
      expect(derivedFrom(name), name).toBeUndefined();
      expect(TWINS[name], name).toBeUndefined();
    }
  });

  it("a hand-written twin's field accepts the same values as the same field of its REST twin", () => {
    const mismatches: string[] = [];
    let compared = 0;
    for (const [label, schema] of inputsOfSkillsAndTools()) {
      const name = label.split(" ")[1]!;
      const twin = TWINS[name];
      if (!twin || !DISTINCT[name]) continue;
      const rest = restFields(op(...twin));
      for (const [field, s] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        if (!rest.has(field) || PAGING.has(field)) continue;
        compared++;
        const [a, b] = [domain(s), domain(rest.get(field))];
        if (JSON.stringify(a) !== JSON.stringify(b))
          mismatches.push(`${label}.${field} ${JSON.stringify(a)} != ${twin.join(" ")} ${field} ${JSON.stringify(b)}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(5);
    expect(readSkillNames()).toContain("review.list");
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
    for (const [label, schema] of inputsOfSkillsAndTools()) {
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

/*
 * A tool's JSON Schema as an assistant reads it: what zod writes, less what says nothing to a model
 * or a validator that the schema does not already say. Every assistant pays for tools/list in its
 * context on every turn (docs/mcp.md, "What tools/list costs"), so the schemas are compacted once,
 * where they are derived (mcp/skills/registry.ts), never by hand in a module. Field names, types,
 * enums, nullability, bounds and descriptions are kept; only repetition goes:
 *
 *   - `pattern` beside a `format` zod spells as a regex (date, date-time, ...): the format says it;
 *   - an integer's bounds at +-(2^53 - 1), zod's safe-integer range: no JSON number a model writes leaves it;
 *   - `propertyNames: {type: "string"}` and `additionalProperties: {}` of a record: every JSON key is
 *     a string, and any value is the default;
 *   - `anyOf: [X, {type: "null"}]` -> X with `type: [X's type, "null"]` (and null in its enum): the same values;
 *   - `anyOf` of plain schemas of distinct types whose keywords each apply to their own type only
 *     (`[{type: "string", maxLength: 200}, {type: "boolean"}]`) -> one schema with a type list: the same values.
 *
 * Output schemas (structuredContent) also drop, as the server's instructions say once
 * (mcp/server.ts INSTRUCTIONS):
 *   - `additionalProperties: false`: the answer is what the server sends; a stricter check is the
 *     server's own (the zod output schema, test/mcp/output-schemas.test.ts);
 *   - `required` where it lists every property: an answer's fields are always present (null when
 *     empty); an object with optional fields keeps its `required` list;
 *   - `type` beside an enum of strings (and null): the values say it;
 * and write a subschema the output repeats (an object, an enum) once under `$defs`, referenced as
 * `#/$defs/<name>` within the same tool's schema (never across tools), where that is shorter.
 * Input schemas keep `type` beside an enum and use no `$ref`: some clients turn a tool's input into a
 * function-calling schema that supports neither well.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The formats zod also writes as a `pattern` (z.iso.date(), z.iso.datetime(), z.email(), ...). */
const FORMATS = new Set(["date", "date-time", "time", "duration", "email", "uuid", "ipv4", "ipv6", "uri"]);
const SAFE = Number.MAX_SAFE_INTEGER;

/** Rebuilds a schema bottom-up, handing each object node (children done) to `f`. */
function mapNodes(v: unknown, f: (node: Json) => Json): unknown {
  if (Array.isArray(v)) return v.map((x) => mapNodes(x, f));
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k] = mapNodes(x, f);
  return f(out);
}

const isType = (node: Json, t: string) => node.type === t || (Array.isArray(node.type) && node.type.includes(t));

/** What every schema sheds: repeated formats, safe-integer bounds, record boilerplate. */
function shed(node: Json): Json {
  const out = { ...node };
  if (typeof out.format === "string" && FORMATS.has(out.format)) delete out.pattern;
  if (isType(out, "integer")) {
    if (out.minimum === -SAFE) delete out.minimum;
    if (out.maximum === SAFE) delete out.maximum;
  }
  if (isObject(out.propertyNames) && Object.keys(out.propertyNames).length === 1 && out.propertyNames.type === "string")
    delete out.propertyNames;
  if (isObject(out.additionalProperties) && Object.keys(out.additionalProperties).length === 0)
    delete out.additionalProperties;
  return out;
}

/**
 * `anyOf: [X, {type: "null"}]` as X with a nullable type, when X is a plain typed schema; an object X
 * only when `objects` (an output's objects are shared first, so a nullable use refers to the same entry).
 */
function nullable(node: Json, objects = true): Json {
  const anyOf = node.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return node;
  const i = anyOf.findIndex((s) => isObject(s) && s.type === "null" && Object.keys(s).length === 1);
  const other = anyOf[1 - i] as Json | undefined;
  if (i < 0 || !isObject(other) || typeof other.type !== "string" || other.type === "null") return node;
  if (["anyOf", "oneOf", "allOf", "$ref", "const"].some((k) => k in other)) return node;
  if (!objects && other.type === "object") return node;
  const { anyOf: _anyOf, ...rest } = node;
  // a key the wrapper and the inner schema both set (a description) would be ambiguous: keep the anyOf
  if (Object.keys(rest).some((k) => k in other)) return node;
  const merged: Json = { ...other, ...rest, type: [other.type, "null"] };
  if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
  return merged;
}

/** The keywords that constrain one type only (JSON Schema 2020-12, validation vocabulary). */
const TYPE_KEYWORDS: Record<string, string[]> = {
  string: ["minLength", "maxLength", "pattern", "format"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  boolean: [],
  null: [],
};

/** `anyOf` of plain schemas of distinct scalar types, each with its own type's keywords only, as one schema. */
function mergedTypes(node: Json): Json {
  const anyOf = node.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length < 2) return node;
  const merged: Json = {};
  const types: string[] = [];
  for (const branch of anyOf) {
    if (!isObject(branch) || typeof branch.type !== "string") return node;
    const own = TYPE_KEYWORDS[branch.type];
    if (!own || types.includes(branch.type)) return node;
    // integer and number share keywords: a merged bound would apply to both
    if (branch.type === "integer" && types.includes("number")) return node;
    if (branch.type === "number" && types.includes("integer")) return node;
    for (const [k, v] of Object.entries(branch)) {
      if (k === "type") continue;
      if (!own.includes(k) || k in merged) return node;
      merged[k] = v;
    }
    types.push(branch.type);
  }
  const { anyOf: _anyOf, ...rest } = node;
  if (Object.keys(rest).some((k) => k in merged || k === "type")) return node;
  return { ...rest, type: types, ...merged };
}

/** An output's object node without `additionalProperties: false`, and without `required` when it names every property. */
function loosen(node: Json): Json {
  const out = { ...node };
  if (out.additionalProperties === false) delete out.additionalProperties;
  const props = isObject(out.properties) ? Object.keys(out.properties) : undefined;
  if (Array.isArray(out.required) && props && out.required.length === props.length) delete out.required;
  return out;
}

/** An output's enum of strings without its `type` (string, or string and null). */
function bareEnum(node: Json): Json {
  if (!Array.isArray(node.enum) || !node.enum.every((v) => typeof v === "string" || v === null)) return node;
  const t = node.type;
  if (t !== "string" && !(Array.isArray(t) && t.every((x) => x === "string" || x === "null"))) return node;
  const { type: _type, ...rest } = node;
  return rest;
}

/** The subschemas worth a `$defs` entry: objects and enums (anything smaller costs more as a reference). */
const shareable = (node: Json) => isObject(node.properties) || Array.isArray(node.enum);

/**
 * Writes each subschema repeated in `schema` once under `$defs`, largest first, as long as that makes
 * the schema shorter; the name is the property (or `item`) where it first appears.
 */
function shareRepeats(schema: Json): Json {
  let root = schema;
  const defs: Json = {};
  for (;;) {
    const seen = new Map<string, { count: number; name: string }>();
    const count = (v: unknown, name: string, top: boolean) => {
      if (Array.isArray(v)) {
        for (const x of v) count(x, name, false);
        return;
      }
      if (!isObject(v)) return;
      if (!top && shareable(v)) {
        const key = JSON.stringify(v);
        const known = seen.get(key);
        seen.set(key, { count: (known?.count ?? 0) + 1, name: known?.name ?? name });
      }
      for (const [k, x] of Object.entries(v)) {
        if (k === "properties" && isObject(x)) for (const [p, s] of Object.entries(x)) count(s, p, false);
        else count(x, k === "items" ? `${name}Item` : name, false);
      }
    };
    count(root, "schema", true);
    for (const d of Object.values(defs)) count(d, "schema", true);
    let best: { key: string; name: string; saved: number } | undefined;
    for (const [key, { count: n, name }] of seen) {
      if (n < 2) continue;
      const ref = JSON.stringify({ $ref: `#/$defs/${name}` }).length + 4;
      const saved = n * (key.length - ref) - key.length - name.length - 4;
      if (saved > 0 && (!best || saved > best.saved)) best = { key, name, saved };
    }
    if (!best) break;
    const base = best.name.replace(/[^A-Za-z0-9_]/g, "_");
    let name = base;
    for (let i = 2; name in defs; i++) name = `${base}${i}`;
    const target = best.key;
    const replace = (v: unknown, top: boolean): unknown => {
      if (Array.isArray(v)) return v.map((x) => replace(x, false));
      if (!isObject(v)) return v;
      if (!top && JSON.stringify(v) === target) return { $ref: `#/$defs/${name}` };
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x, false)]));
    };
    root = replace(root, true) as Json;
    for (const [k, d] of Object.entries(defs)) defs[k] = replace(d, true);
    defs[name] = JSON.parse(target);
  }
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}

/** A tool's input schema (arguments a model writes), compacted. */
export const compactInputSchema = <T extends Json>(schema: T): T =>
  mapNodes(schema, (n) => mergedTypes(nullable(shed(n)))) as T;

/** A tool's output schema (structuredContent), compacted: also loosened and with its repeats shared. */
export function compactOutputSchema<T extends Json>(schema: T): T {
  const plain = mapNodes(schema, (n) => loosen(shed(n)));
  // scalars and enums in their final form first (a node's children are mapped before it: nullable
  // types merge in one pass, enums lose their type in the next), so sharing weighs what is served;
  // objects are shared before their nullable uses merge, so `T` and `T | null` share one entry
  const scalars = mapNodes(
    mapNodes(plain, (n) => nullable(n, false)),
    bareEnum,
  ) as Json;
  return mapNodes(shareRepeats(scalars), nullable) as T;
}

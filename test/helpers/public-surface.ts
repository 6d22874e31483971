import { installCatalogue } from "../../src/lib/catalogue";
import { agentTools, toolSpec } from "../../src/modules/agents/tools";
import { catalogEntry, type Skill, toolDefinition } from "../../src/modules/mcp/skills/registry";
import { WIRING } from "../../src/wiring";
import { openApiDocument } from "./openapi";

/*
 * The public names of the service, as clients see them, in a form a committed snapshot can hold
 * (test/fixtures/surface/*.json, compared by test/app/openapi-snapshot.test.ts,
 * test/mcp/tools-snapshot.test.ts and test/agents/tools-snapshot.test.ts). A refactor that moves an
 * operation proves with them that nothing public changed; a deliberate change updates the snapshot
 * in the same commit (`npx vitest run --project workers <file> -u`) and the diff shows what changed.
 */

type Json = Record<string, any>;

/** JSON with its object keys sorted: the same value always prints the same. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, canonical((v as Json)[k])]),
    );
  return v;
}

/** A short digest of a value (FNV-1a, 2 x 32 bits): enough to show that an inline schema or a text changed. */
export function digest(v: unknown): string {
  const text = JSON.stringify(canonical(v));
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193) >>> 0;
    b = Math.imul(b ^ text.charCodeAt(i), 0x811c9dc5) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** A schema by its component name, or `inline <digest>` for one the document spells out in place. */
const schemaName = (s: Json | undefined): string | null => {
  if (!s) return null;
  if (s.$ref) return String(s.$ref).replace("#/components/schemas/", "");
  if (s.type === "array" && s.items?.$ref) return `${schemaName(s.items)}[]`;
  return `inline ${digest(s)}`;
};

const content = (c: Json | undefined) =>
  Object.fromEntries(Object.entries(c ?? {}).map(([media, v]) => [media, schemaName((v as Json).schema)]));

/**
 * Every documented operation, keyed "METHOD /path": its operationId, tags, security, summary, the
 * digest of its description, its parameters (in, name, required, schema), its request body and its
 * responses by status and media type, with the schemas named; then every component schema's digest,
 * so a change inside a named schema shows which one.
 */
export function openApiSurface() {
  const doc = openApiDocument() as unknown as Json;
  const operations: Json = {};
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(methods as Json)) {
      const o = op as Json;
      operations[`${method.toUpperCase()} ${path}`] = {
        operationId: o.operationId,
        tags: o.tags,
        security: o.security,
        summary: o.summary,
        description: o.description ? digest(o.description) : null,
        parameters: (o.parameters ?? []).map(
          (p: Json) => `${p.in} ${p.name}${p.required ? " (required)" : ""}: ${schemaName(p.schema)}`,
        ),
        requestBody: o.requestBody
          ? { required: Boolean(o.requestBody.required), content: content(o.requestBody.content) }
          : null,
        responses: Object.fromEntries(
          Object.entries(o.responses ?? {}).map(([status, r]) => [status, content((r as Json).content)]),
        ),
      };
    }
  }
  const schemas = Object.fromEntries(
    Object.entries((doc.components?.schemas ?? {}) as Json).map(([name, s]) => [name, digest(s)]),
  );
  return canonical({ operations, schemas });
}

/**
 * Every property path a JSON Schema names (`data[].review.text`), with its `$ref`s into `$defs` resolved:
 * the public field names of a tool, whatever shape the schema takes (compacted, shared definitions;
 * src/lib/compact-schema.ts), so a snapshot diff shows a renamed or removed field plainly.
 */
export function schemaFields(schema: Json | undefined): string[] {
  const out = new Set<string>();
  const defs = (schema?.$defs ?? {}) as Json;
  const walk = (s: Json | undefined, prefix: string, depth: number) => {
    if (!s || typeof s !== "object" || depth > 32) return;
    if (typeof s.$ref === "string") return walk(defs[s.$ref.replace("#/$defs/", "")], prefix, depth + 1);
    for (const k of ["anyOf", "oneOf", "allOf"]) for (const branch of s[k] ?? []) walk(branch, prefix, depth + 1);
    for (const [name, field] of Object.entries((s.properties ?? {}) as Json)) {
      out.add(`${prefix}${name}`);
      walk(field as Json, `${prefix}${name}.`, depth + 1);
    }
    if (s.items) walk(s.items, `${prefix}[].`, depth + 1);
  };
  walk(schema, "", 0);
  return [...out].sort();
}

/** The MCP tools the composition root hands the server. */
export const servedSkills = (): Skill[] => WIRING.skills;

/**
 * Every MCP tool as tools/list shows it (name, title, description, input and output schema,
 * annotations) plus who may see it (the catalog's scope, access, agency/platform only, confirmation,
 * task support) and the role a user needs, and the field names its schemas hold (`fields`, $refs
 * resolved: schemaFields); sorted by name. Tools carry no icon (the server has one).
 */
export function mcpToolsSurface() {
  const tools = [...servedSkills()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((s) => {
      const listed = toolDefinition(s);
      const { requiredScope, access, agencyOnly, platformOnly, confirmation, taskSupport } = catalogEntry(s);
      return {
        ...listed,
        fields: { input: schemaFields(listed.inputSchema), output: schemaFields(listed.outputSchema) },
        access: {
          requiredScope,
          access,
          agencyOnly,
          platformOnly,
          confirmation,
          taskSupport,
          minRole: s.minRole ?? null,
        },
      };
    });
  return canonical(tools) as Json[];
}

/** Every agent tool (what the agents' models are offered): name, description, parameters, admitting scopes. */
export function agentToolsSurface() {
  // the agents find their tools in the catalogue the Worker installs (the same list)
  installCatalogue(WIRING.operations);
  return canonical(
    agentTools().map((t) => {
      const spec = toolSpec(t.name);
      return { ...spec, fields: schemaFields(spec.parameters), scopes: t.scopes, untrusted: t.untrusted ?? [] };
    }),
  ) as Json[];
}

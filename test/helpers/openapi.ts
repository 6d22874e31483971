import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { API_INFO, createApp } from "../../src/app";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface SchemaObject {
  type?: string | string[];
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  additionalProperties?: boolean | SchemaObject;
  $ref?: string;
}

export interface Parameter {
  in: "path" | "query" | "header" | "cookie";
  name: string;
  required?: boolean;
  schema?: SchemaObject;
}

export interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: SchemaObject }> };
  responses: Record<string, { content?: Record<string, { schema?: SchemaObject }> }>;
}

export interface Document {
  paths: Record<string, Partial<Record<HttpMethod, Operation>>>;
  components: { schemas: Record<string, SchemaObject> };
}

export interface OperationRef {
  method: HttpMethod;
  path: string;
  op: Operation;
}

let cached: Document | undefined;
/** The document GET /docs/openapi.json serves, built from the same app (no request needed). */
export const openApiDocument = (): Document =>
  (cached ??= createApp().getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO }) as unknown as Document);

export const operations = (): OperationRef[] =>
  Object.entries(openApiDocument().paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method: method as HttpMethod, path, op: op! })),
  );

export const pathParams = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === "path");
export const isTenantScoped = (op: Operation) => (op.security ?? []).some((s) => "tenantHeader" in s);

/** Resolves a local $ref (one level is enough for the schemas zod-openapi emits). */
export const deref = (s: SchemaObject | undefined): SchemaObject | undefined => {
  if (!s?.$ref) return s;
  return openApiDocument().components.schemas[s.$ref.replace("#/components/schemas/", "")];
};

type Matcher = { ref: OperationRef; re: RegExp; params: number };
let matchers: Map<string, Matcher[]> | undefined;
/** Segments of a path template or a concrete path, for grouping: a template parameter matches one segment. */
const segments = (path: string) => path.split("/").length;
/**
 * The documented operation for a concrete request; literal segments win over templated ones. The operations are
 * grouped by method and segment count (a parameter matches exactly one segment, `[^/]+`), so a request tests only
 * the templates that could match it, in the same order (fewest parameters first) as one list would.
 */
export function findOperation(method: string, pathname: string): OperationRef | undefined {
  if (!matchers) {
    matchers = new Map();
    const all = operations()
      .map((ref) => ({
        ref,
        re: new RegExp(`^${ref.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
        params: (ref.path.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
    for (const x of all) {
      const key = `${x.ref.method} ${segments(x.ref.path)}`;
      matchers.set(key, [...(matchers.get(key) ?? []), x]);
    }
  }
  return matchers.get(`${method.toLowerCase()} ${segments(pathname)}`)?.find((x) => x.re.test(pathname))?.ref;
}

const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
let registered = false;
const validators = new Map<string, ValidateFunction>();
/**
 * Compiled validators by the schema's text: most responses share one schema (every error status is a $ref to
 * ErrorResponse), and ajv compiles a schema object it has not seen again (~30 ms each), so two operations with
 * the same schema share one validator.
 */
const compiled = new Map<string, ValidateFunction>();

const DOC_ID = "https://openapi.test/openapi.json";

/**
 * Checks one live response against the document: its status must be documented for the operation,
 * and a JSON body must match that status's schema. Returns a description of the mismatch, or null.
 */
export function responseMismatch(
  method: string,
  pathname: string,
  status: number,
  contentType: string | null,
  body: unknown,
): string | null {
  const ref = findOperation(method, pathname);
  if (!ref) return null;
  const documented = ref.op.responses[String(status)] ?? ref.op.responses.default;
  const where = `${ref.method.toUpperCase()} ${ref.path} -> ${status}`;
  if (!documented) return `${where}: status not documented (documented: ${Object.keys(ref.op.responses).join(", ")})`;
  if (!contentType?.includes("json")) return null;
  const media = Object.keys(documented.content ?? {}).find((k) => k.includes("json"));
  if (!media)
    return `${where}: JSON body but the document declares ${Object.keys(documented.content ?? {}).join(", ") || "no body"}`;
  if (!registered) {
    ajv.addSchema({ $id: DOC_ID, components: openApiDocument().components });
    registered = true;
  }
  const key = `${ref.method} ${ref.path} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    // compile the schema in place, with the document's components registered for its $refs
    const schema = rebase(documented.content![media]!.schema ?? {});
    const text = JSON.stringify(schema);
    validate = compiled.get(text) ?? ajv.compile(schema);
    compiled.set(text, validate);
    validators.set(key, validate);
  }
  if (validate(body)) return null;
  const errs = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
  return `${where}: body does not match the documented schema: ${errs.join("; ")}`;
}

/** Points local component refs at the registered document. */
const rebase = (s: unknown): any => {
  if (Array.isArray(s)) return s.map(rebase);
  if (s && typeof s === "object") {
    return Object.fromEntries(
      Object.entries(s).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${DOC_ID}${v}` : rebase(v),
      ]),
    );
  }
  return s;
};

import { z } from "@hono/zod-openapi";
import type { TenantRole } from "../db/schema";
import type { ServiceContext } from "./context";
import { validationError } from "./errors";

/*
 * One definition per operation (docs/ARCHITECTURE.md, "How to add an operation"). An operation says
 * once what it is called, where it lives over HTTP, what it takes and returns, who may call it and
 * what it does; the three front doors are derived from it and cannot disagree:
 *   - the REST route: src/lib/operation-route.ts `routeOf` (createRoute + a thin handler),
 *   - the MCP tool: src/modules/mcp/skills/operation.ts `skillOf` (what `skill()` builds),
 *   - the agent tool: src/modules/agents/tools.ts (read operations, through their MCP tool or `toolOf`).
 * The input of MCP and agents is the REST input (path, query and body fields in one object) with the
 * query-string coercions undone here (`jsonInputOf`), so a field accepts the same values everywhere.
 */

type ObjectSchema = z.ZodObject<z.ZodRawShape>;
type AnyObject = z.ZodType<Record<string, unknown>> & { shape?: z.ZodRawShape };

/** What an operation's handler receives: the tenant's ServiceContext and the scopes the caller holds. */
export interface OperationContext extends ServiceContext {
  /**
   * The caller's scopes, for operations whose answer depends on them (inbox items by kind): an API
   * key's or OAuth grant's scopes; "all" for a signed-in user (the role decides, not scopes).
   */
  scopes: readonly string[] | "all";
}

type InputOf<P, Q, B> = (P extends z.ZodType ? z.output<P> : unknown) &
  (Q extends z.ZodType ? z.output<Q> : unknown) &
  (B extends z.ZodType ? z.output<B> : unknown);

/** The MCP door of an operation: what only MCP has (a title, the agency tenantId input, its own page size). */
export interface McpDoor<I = Record<string, unknown>> {
  title: string;
  /** accepts a tenantId input, honoured only in an agency OAuth session */
  agencyAware?: boolean;
  /** an MCP answer must fit a model's context: its own default and maximum page size */
  limit?: { default: number; max: number };
  /** REST fields MCP does not offer */
  omit?: readonly string[];
  /** REST field -> MCP field name, where the spec names it differently (a path {id} -> responseId) */
  rename?: Readonly<Record<string, string>>;
  /**
   * Fields REST leaves optional that an MCP caller must give (non-empty for text): a model acting for a
   * person states why (a suppression's reason goes into the audit log)
   */
  required?: readonly string[];
  /** field descriptions written for a model (the shapes stay the REST ones) */
  describe?: Readonly<Record<string, string>>;
  /** values MCP callers cannot choose (e.g. a manual publish): merged into the handler's input */
  fixed?: Partial<I>;
  /** the description for a model, when it differs from the REST description */
  description?: string;
  /**
   * The scopes that admit the tool, when the door narrows the operation (`fixed`) and a narrower grant
   * may call it (write:responses admits only the manual publish); default the operation's scopes.
   */
  scopes?: readonly string[];
  /**
   * An operation whose output is an array answers MCP as `{ [wrap]: [...] }`: structuredContent and
   * outputSchema must be objects (MCP 2025-06-18, Tools: Structured Content). REST keeps the bare array.
   */
  wrap?: "data";
}

/** The agents' door of a read that is no MCP tool (agents/tools.ts `toolOf`). */
export interface AgentDoor<I = Record<string, unknown>> {
  /**
   * Any one of these admits an agent's call, checked against the caller's own scopes: agents read
   * what the caller's grant covers even where REST keeps the route to signed-in users (analytics).
   */
  scopes: readonly string[];
  /** defaults of the agents' own (a weekly series fits a model's context better than a daily one) */
  defaults?: Partial<I>;
  /** REST field -> the tool's field name (a path {id} -> locationId, as the agents call it) */
  rename?: Readonly<Record<string, string>>;
}

export interface OperationDef<
  P extends AnyObject | undefined,
  Q extends AnyObject | undefined,
  B extends AnyObject | undefined,
  O extends z.ZodType,
> {
  /** the tool name of MCP and agents: <noun>.<verb>, e.g. contact.list */
  name: string;
  /** the OpenAPI operationId: camelCase, verb first, noun from the path (BRIEF naming rule), e.g. listContacts */
  operationId: string;
  method: "get" | "post" | "put" | "patch" | "delete";
  /** the OpenAPI path, {param} style */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  request?: { params?: P; query?: Q; body?: B; bodyRequired?: boolean };
  /** the success response's schema: REST's 2xx body, MCP's structuredContent, an agent tool's result */
  output: O;
  /** the success status (200 unless a create) */
  status?: 200 | 201;
  /** the REST error responses, by status (lib/openapi.ts `errors`) */
  errors?: Record<number, unknown>;
  /** any one of these admits an API key or OAuth token; the REST scope table must agree (test/lib/operation.test.ts) */
  scopes: readonly string[];
  /** the tenant role a user caller needs (REST: requireRole middleware; MCP: checked per call); none for reads */
  minRole?: TenantRole;
  access: "read" | "write";
  /** a write that removes or overwrites something (destructiveHint) */
  destructive?: boolean;
  /** calling it again with the same input has no further effect (idempotentHint); reads always are */
  idempotent?: boolean;
  /** it reaches beyond this service (openWorldHint) */
  openWorld?: boolean;
  /** MCP asks the user first: the question, or null when this input needs none (mcp/confirmations.ts) */
  confirm?(input: InputOf<P, Q, B>): string | null;
  /** output paths holding outsider text (mcp/skills/untrusted.ts) */
  untrusted?: string[];
  /** present when the operation is an MCP tool */
  mcp?: McpDoor<InputOf<P, Q, B>>;
  /** a read offered to agents as a tool although it is no MCP tool (reads that are MCP tools are agent tools already) */
  agent?: AgentDoor<InputOf<P, Q, B>>;
  handler(ctx: OperationContext, input: InputOf<P, Q, B>): Promise<z.input<O> | z.output<O>>;
}

export type Operation = OperationDef<AnyObject | undefined, AnyObject | undefined, AnyObject | undefined, z.ZodType> & {
  /** the operation's input as JSON fields (no query-string coercions), before the MCP door's changes */
  readonly jsonInput: ObjectSchema;
};

/** Declares an operation; the catalogue is the composition root's list (src/wiring.ts), not a side effect of this call. */
export function defineOperation<
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends AnyObject | undefined = undefined,
  O extends z.ZodType = z.ZodType,
>(def: OperationDef<P, Q, B, O>): Operation {
  const op = def as unknown as Operation;
  return Object.freeze({ ...op, jsonInput: jsonInputOf(op) }) as Operation;
}

const shapeOf = (s: AnyObject | undefined): z.ZodRawShape =>
  s && (s as ObjectSchema).shape ? (s as ObjectSchema).shape : {};

/** Every input field of the operation, path then query then body, as one object of JSON-typed fields. */
export function jsonInputOf(op: Pick<Operation, "request">): ObjectSchema {
  const r = op.request ?? {};
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shapeOf(r.params))) shape[k] = v as z.ZodType;
  for (const [k, v] of Object.entries(shapeOf(r.query))) shape[k] = jsonField(v as z.ZodType);
  for (const [k, v] of Object.entries(shapeOf(r.body))) shape[k] = v as z.ZodType;
  // the objects' own rules (a range at most N days, ratingMin <= ratingMax) hold for every door
  const checks = [r.params, r.query, r.body].flatMap((s) => (s ? (defOf(s as z.ZodType).checks ?? []) : []));
  const merged = z.object(shape);
  return (checks.length ? merged.check(...(checks as never[])) : merged) as ObjectSchema;
}

/**
 * The operation's input from a door's (MCP, agent) already-shaped fields: the object rules of the
 * REST schemas checked again on the operation's own field names; a breach is a 400 VALIDATION_ERROR.
 */
export function checkedInput(op: Operation, input: Record<string, unknown>): Record<string, unknown> {
  const parsed = op.jsonInput.safeParse(input);
  if (!parsed.success)
    throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  return parsed.data;
}

type Def = {
  type: string;
  checks?: unknown[];
  innerType?: z.ZodType;
  defaultValue?: unknown;
  coerce?: boolean;
  in?: z.ZodType;
  out?: z.ZodType;
  entries?: Record<string, string>;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const descriptionOf = (s: z.ZodType) => s.description;

/**
 * A query-string field as the JSON field it stands for: the one place the REST coercions are undone.
 * `z.coerce.number()` -> a number with the same checks; `"true" | "false"` -> boolean. Optional and
 * default wrappers are kept; other fields are returned as they are.
 */
export function jsonField(s: z.ZodType): z.ZodType {
  const def = defOf(s);
  const described = (t: z.ZodType) => (descriptionOf(s) && !descriptionOf(t) ? t.describe(descriptionOf(s)!) : t);
  if (def.type === "optional" || def.type === "default") {
    const inner = jsonField(def.innerType!);
    // a field without a coercion is the REST field itself (its metadata included)
    if (inner === def.innerType) return s;
    return described(def.type === "optional" ? inner.optional() : inner.default(def.defaultValue as never));
  }
  if (def.type === "number" && def.coerce)
    return (s as unknown as { clone(d: Def): z.ZodType }).clone({ ...def, coerce: false });
  if (def.type === "pipe" && isBooleanString(def.in!)) return described(z.boolean());
  if (isBooleanString(s)) return described(z.boolean());
  return s;
}

/** an enum of exactly "true" and "false": a boolean in a query string */
function isBooleanString(s: z.ZodType): boolean {
  const def = defOf(s);
  if (def.type !== "enum" || !def.entries) return false;
  return JSON.stringify(Object.values(def.entries).sort()) === '["false","true"]';
}

/** A page-size field: 1..max, with the surface's own default. */
export const pageLimit = (p: { default: number; max: number }) =>
  z.number().int().min(1).max(p.max).default(p.default).describe(`page size, 1 to ${p.max} (default ${p.default})`);

/** An optional field made required; a text field also non-empty. */
function requiredField(s: z.ZodType): z.ZodType {
  const def = defOf(s);
  const inner = def.type === "optional" ? def.innerType! : s;
  return defOf(inner).type === "string" ? (inner as z.ZodString).min(1) : inner;
}

/**
 * The operation's input as an MCP tool takes it: the JSON input, less omitted fields, renamed fields
 * under their MCP names, MCP's page size and the descriptions written for a model.
 */
export function mcpInputOf(op: Operation): ObjectSchema {
  const door = op.mcp ?? { title: op.summary };
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(op.jsonInput.shape)) {
    if (door.omit?.includes(k) || (door.fixed && k in door.fixed)) continue;
    let field = k === "limit" && door.limit ? pageLimit(door.limit) : (v as z.ZodType);
    if (door.required?.includes(k)) field = requiredField(field);
    const text = door.describe?.[k];
    if (text) field = field.describe(text);
    shape[door.rename?.[k] ?? k] = field;
  }
  return z.object(shape);
}

/** The operation's input as an agent tool takes it: the JSON input with the agent door's defaults. */
export function agentInputOf(op: Operation): ObjectSchema {
  const defaults = (op.agent?.defaults ?? {}) as Record<string, unknown>;
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(op.jsonInput.shape)) {
    const field = v as z.ZodType;
    const name = op.agent?.rename?.[k] ?? k;
    if (!(k in defaults)) shape[name] = field;
    else {
      const def = defOf(field);
      const bare = def.type === "default" || def.type === "optional" ? def.innerType! : field;
      shape[name] = (bare.default(defaults[k] as never) as z.ZodType).describe(descriptionOf(field) ?? "");
    }
  }
  return z.object(shape);
}

/** An agent tool's input back in the operation's own field names. */
export function fromAgentInput(op: Operation, input: Record<string, unknown>): Record<string, unknown> {
  const back = Object.fromEntries(Object.entries(op.agent?.rename ?? {}).map(([rest, tool]) => [tool, rest]));
  return Object.fromEntries(Object.entries(input).map(([k, v]) => [back[k] ?? k, v]));
}

/** An MCP (or agent) input back in the operation's own field names, with the door's fixed values. */
export function fromMcpInput(op: Operation, input: Record<string, unknown>): Record<string, unknown> {
  const back = Object.fromEntries(Object.entries(op.mcp?.rename ?? {}).map(([rest, mcp]) => [mcp, rest]));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) out[back[k] ?? k] = v;
  return { ...out, ...(op.mcp?.fixed ?? {}) };
}

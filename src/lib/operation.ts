import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import type { JobType, TenantRole } from "../db/schema";
import type { AgencyScope, PlatformContext, ServiceContext } from "./context";
import { validationError } from "./errors";

/*
 * One definition per operation: the catalogue (docs/ARCHITECTURE.md, "How to add an operation"). An
 * operation says once what it is called, what it takes and returns, who may call it, what it does and
 * which doors it opens; every door is derived from it and cannot disagree:
 *   - REST (when it has a method and path): src/lib/operation-route.ts `restRoutes` (createRoute + a thin handler),
 *   - MCP (`mcp`): src/modules/mcp/skills/operation.ts `skillOf` (what the MCP server lists and calls),
 *   - agents (`agent`, and every read with an MCP door): src/modules/agents/tools.ts `agentTools`,
 *   - the console (`console`): src/lib/operation-route.ts `callOperation` (a page's request parts, REST's checks).
 * The catalogue is one list, collected by the composition root (src/wiring.ts OPERATIONS) from each
 * module's exported `operations` array; nothing registers itself on import.
 * The input of MCP, agents and the console is the REST input (path, query, header and body fields in
 * one object) with the query-string coercions undone here (`jsonInputOf`), so a field accepts the same
 * values everywhere.
 */

type ObjectSchema = z.ZodObject<z.ZodRawShape>;
type AnyObject = z.ZodType<Record<string, unknown>> & { shape?: z.ZodRawShape };

/**
 * Whom an operation acts for, and so the context its handler gets. REST derives it from the path and
 * checks it there: `/v1/*` tenant (x-tenant-id, a role and an API key's scopes), `/admin/*` platform
 * (platform_admin), `/agency/*` agency (an administered agency), `/me*` user (the signed-in person).
 */
export type OperationKind = "tenant" | "platform" | "agency" | "user";

/** The path prefix each kind's REST routes live under (defineOperation refuses any other). */
export const KIND_PREFIX: Record<OperationKind, RegExp> = {
  tenant: /^\/v1\//,
  platform: /^\/admin\//,
  agency: /^\/agency\//,
  user: /^\/me(\/|$)/,
};

/** The caller's scopes: an API key's or OAuth grant's; "all" for a signed-in user (the role decides, not scopes). */
export type CallerScopes = readonly string[] | "all";

/** What a tenant operation's handler receives: the tenant's ServiceContext and the scopes the caller holds. */
export interface OperationContext extends ServiceContext {
  /** for operations whose answer depends on them (inbox items by kind) */
  scopes: CallerScopes;
  /**
   * The caller's access to the tenant as its door resolved it with the one access check (REST:
   * tenantContext; MCP: skills/run.ts); absent for the service's own calls (an agent run by a sweep)
   */
  access?: AppEnv["Variables"]["access"];
}

/** A platform operation (/admin, platform_admin): no tenant; `db` is the control database. */
export interface PlatformOperationContext extends PlatformContext {
  scopes: CallerScopes;
}

/** An agency operation (/agency, an agency admin or a platform admin): the agencies the caller acts for. */
export interface AgencyOperationContext extends PlatformContext {
  scopes: CallerScopes;
  agencies: AgencyScope;
}

/** A user operation (/me): the signed-in person, across tenants. */
export interface UserOperationContext extends PlatformContext {
  scopes: CallerScopes;
  userId: string;
  /** the signed-in person as authenticated (their roles, how they signed in, the session of the credential) */
  principal: Extract<AppEnv["Variables"]["principal"], { kind: "user" }>;
}

export type ContextOf<K extends OperationKind> = {
  tenant: OperationContext;
  platform: PlatformOperationContext;
  agency: AgencyOperationContext;
  user: UserOperationContext;
}[K];

export type AnyOperationContext = ContextOf<OperationKind>;

/** Whether the caller holds the scope (a signed-in user holds every one: the role decides). */
export const holdsScope = (ctx: { scopes: CallerScopes }, scope: string) =>
  ctx.scopes === "all" || ctx.scopes.includes(scope);

/** What an upload reader reads of the request: hono's HonoRequest (whose body cache the route's validator shares). */
export interface UploadRequest {
  header(name: string): string | undefined;
  formData(): Promise<FormData>;
  text(): Promise<string>;
}

/**
 * A request body the operation reads itself: one or several media types (multipart/form-data with a
 * file, or a text/csv body), read into input fields by `read`. `input` is those fields' schema, which the
 * console (and any door that can give them) passes instead.
 */
export interface Upload<S extends AnyObject = AnyObject> {
  /** the media types the OpenAPI document shows, each with its schema */
  content: Record<string, { schema: z.ZodType }>;
  input: S;
  read(request: UploadRequest): Promise<z.output<S>>;
}

/** An upload, typed: `request: { upload: upload({ content, input, read: async (req) => ... }) }`. */
export const upload = <S extends AnyObject>(u: Upload<S>): Upload<S> => u;

/** A cap on a request body's bytes and the 413 PAYLOAD_TOO_LARGE it answers past it. */
export interface BodyLimit {
  bytes: number;
  message: string;
  /** the error's details, when a client tells this refusal from others by them (`{ reason: "file_too_large" }`) */
  details?: Record<string, unknown>;
}

/** The request parts of a REST operation; their fields merge into one input (path, query, headers, body). */
export interface RequestParts {
  params?: AnyObject;
  query?: AnyObject;
  /** request headers the operation reads (e.g. `idempotency-key`), lower-case names */
  headers?: AnyObject;
  /** application/json */
  body?: AnyObject | z.ZodType;
  bodyRequired?: boolean;
  /**
   * A JSON body that is not an object of named fields (a record of free keys: an agent's input) comes
   * whole under this input field, so none of its keys can stand in for a path or query field.
   */
  bodyField?: string;
  /** multipart/form-data, validated by zod (a file is `z.instanceof(File)`) */
  form?: AnyObject;
  /** a body read by the operation's own reader (several media types, e.g. multipart or text/csv) */
  upload?: Upload;
  /** a cap on the body's bytes: 413 PAYLOAD_TOO_LARGE with this message (and details, e.g. a reason) past it */
  bodyLimit?: BodyLimit;
}

type Out<S> = S extends z.ZodType ? z.output<S> : unknown;
type Part<R, K extends string> = R extends { [k in K]: infer S } ? Out<S> : unknown;
type UploadOut<R> = R extends { upload: Upload<infer S> } ? z.output<S> : unknown;

type BodyOut<R> = R extends { body: infer S; bodyField: infer F extends string }
  ? { [k in F]: Out<S> }
  : Part<R, "body">;

/** The handler's input: every request part's fields in one object (or the `input` of an operation without REST). */
export type InputOf<R, I> = Part<R, "params"> &
  Part<R, "query"> &
  Part<R, "headers"> &
  BodyOut<R> &
  Part<R, "form"> &
  UploadOut<R> &
  Out<I>;

/** A REST answer that is not JSON: a file or a stream, served with its media type; an attachment when `fileName` is given. */
export interface FileAnswer {
  body: ReadableStream | string | ArrayBuffer | Uint8Array;
  fileName?: string;
}

interface FileKind {
  mediaType: string;
  description: string;
  /** the Content-Type header, when it says more than the media type (a charset) */
  contentType?: string;
  /** headers every answer of this kind carries (an event stream's `cache-control: no-cache`) */
  headers?: Record<string, string>;
}

const FILES = new WeakMap<z.ZodType, FileKind & { contentType: string }>();

/**
 * The output of an operation that answers a file or a stream (a CSV export, JSON Lines, an event
 * stream): the handler returns a `FileAnswer`. REST only: an MCP or agent door cannot carry one.
 */
export function fileOutput(o: FileKind): z.ZodType<FileAnswer> {
  const schema = z.custom<FileAnswer>((v) => typeof v === "object" && v !== null && "body" in v);
  FILES.set(schema, { ...o, contentType: o.contentType ?? o.mediaType });
  return schema;
}

/** The media type of a file output, or undefined for JSON. */
export const fileOf = (output: z.ZodType) => FILES.get(output);

/**
 * A file answer as the HTTP response its output declares (its content type; an attachment when it has a
 * file name): REST's answer, and a console page's that serves the same download.
 */
export function fileResponse(
  output: z.ZodType,
  f: FileAnswer,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const file = fileOf(output);
  if (!file) throw new Error("not a file output (fileOutput)");
  return new Response(f.body, {
    status: init.status ?? 200,
    headers: {
      "content-type": file.contentType,
      ...file.headers,
      ...(f.fileName ? { "content-disposition": `attachment; filename="${f.fileName}"` } : {}),
      ...init.headers,
    },
  });
}

/** The output of an operation that answers 204 No Content (its handler returns nothing; MCP answers {}). */
export const noContent = z.void();

/**
 * An answer with a status or headers of its own: another documented success status (an upsert's 200
 * next to its 201: `statuses`), or headers such as `Location` on a 202. Only REST sees the status and
 * headers; MCP, agents and the console get `body`.
 */
export class Reply<T> {
  constructor(
    readonly body: T,
    readonly status?: number,
    readonly headers?: Record<string, string>,
  ) {}
}
export const reply = <T>(body: T, o: { status?: number; headers?: Record<string, string> } = {}) =>
  new Reply(body, o.status, o.headers);

/** The body of an answer (a Reply's, or the answer itself). */
export const bodyOf = (answer: unknown) => (answer instanceof Reply ? answer.body : answer);

type Answer<O> = O extends z.ZodType<FileAnswer> ? FileAnswer : z.input<O> | z.output<O>;

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
  /** which credentials may see and call the tool at all, beyond its scopes (e.g. signed-in users only) */
  callers?(caller: { credential: string; scopes: readonly string[] }): boolean;
  /**
   * A long job: a 2026-07-28 client that declares the tasks extension gets a task handle at once and
   * the job runs in the background (mcp/tasks.ts); every other client gets the handler's answer.
   * `start` stores the job (a `jobs` row of type `kind`, owned by `owner`) and queues it; `settle`
   * brings a job's row up to date before tasks/get reads it (a review sync reads its connections).
   */
  longJob?: LongJobDoor<I>;
}

/** A stored tenant job as the MCP door sees it (the jobs module's row; lib names no module's type). */
export interface JobLike {
  id: string;
  tenantId: string;
  type: JobType;
}

export interface LongJobDoor<I = Record<string, unknown>> {
  /** the job kind (background_jobs.type) whose rows are this tool's tasks */
  kind: JobType;
  /** what the job's done/total count, in the task's status message */
  unit: string;
  start(ctx: OperationContext, input: I, owner: string): Promise<JobLike>;
  settle?(ctx: ServiceContext, job: JobLike): Promise<JobLike>;
}

/** The agents' door of an operation (agents/tools.ts). */
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
  /** the description for a model, when it differs from the operation's */
  description?: string;
}

/** The console's door: a console page may call the operation through `callOperation` (src/lib/operation-route.ts). */
export interface ConsoleDoor {
  /** the form's button or heading, when it differs from the summary */
  label?: string;
}

export interface OperationDef<
  R extends RequestParts,
  I extends AnyObject | undefined,
  O extends z.ZodType,
  K extends OperationKind,
> {
  /** the tool name of MCP and agents, and the operation's name in the catalogue: <noun>.<verb>, e.g. contact.list */
  name: string;
  /** whom it acts for (default tenant); REST checks the path agrees (KIND_PREFIX) */
  context?: K;

  // --- the REST door: present when method and path are given ---
  /** the OpenAPI operationId: camelCase, verb first, noun from the path (BRIEF naming rule), e.g. listContacts */
  operationId?: string;
  method?: "get" | "post" | "put" | "patch" | "delete";
  /** the OpenAPI path, {param} style */
  path?: string;
  tags?: string[];
  /** REST's summary; a tool's title when there is no MCP title */
  summary: string;
  /** REST's description, and the tool's unless a door has its own */
  description?: string;
  request?: R;
  /** the success status (default 200); 204 answers no content (output `noContent`) */
  status?: 200 | 201 | 202 | 204;
  /** the success response's description in the OpenAPI document (default: OK, Created, Accepted, No Content) */
  statusText?: string;
  /** headers of the success response the handler sets with `reply` (e.g. a 202's Location), as the document shows them */
  responseHeaders?: AnyObject;
  /** other success statuses the handler may answer with `reply(body, {status})`, same output, by description */
  statuses?: Record<number, string>;
  /** the REST error responses, by status (lib/openapi.ts `errors`) */
  errors?: Record<number, unknown>;

  // --- what every door shares ---
  /** the input of an operation without a REST door (no request parts to derive it from) */
  input?: I;
  /** the success answer: REST's 2xx body, MCP's structuredContent, an agent tool's result (or fileOutput / noContent) */
  output: O;
  /** any one of these admits an API key or OAuth token; the REST scope table must agree (test/lib/operation.test.ts) */
  scopes: readonly string[];
  /** the tenant role a user caller needs (REST: requireRole; MCP: checked per call; console: invoke); none for reads */
  minRole?: TenantRole;
  access: "read" | "write";
  /** a write that removes or overwrites something (destructiveHint) */
  destructive?: boolean;
  /** calling it again with the same input has no further effect (idempotentHint); reads always are */
  idempotent?: boolean;
  /** it reaches beyond this service (openWorldHint) */
  openWorld?: boolean;
  /** MCP asks the user first: the question, or null when this input needs none (mcp/confirmations.ts) */
  confirm?(input: InputOf<R, I>): string | null;
  /** output paths holding outsider text (mcp/skills/untrusted.ts) */
  untrusted?: string[];
  /**
   * A second operation over the same service as a REST operation, whose door must differ from it (the
   * spec's own vocabulary, another answer): the REST twin's operationId and why. Its fields shared with
   * the twin must accept the same values (test/mcp/input-parity.test.ts).
   */
  variantOf?: { operationId: string; why: string };

  // --- the other doors ---
  mcp?: McpDoor<InputOf<R, I>>;
  agent?: AgentDoor<InputOf<R, I>>;
  console?: ConsoleDoor;
  handler(ctx: ContextOf<K>, input: InputOf<R, I>): Promise<Answer<O> | Reply<Answer<O>>>;
}

/**
 * An operation of the catalogue. `I` and `A` are its input and answer (typed where it is used by name,
 * e.g. `callOperation<Location>(c, getLocationOperation, ...)`; any in the catalogue's list).
 */
// biome-ignore lint/suspicious/noExplicitAny: the catalogue's list holds operations of every input and answer
export interface Operation<I = any, A = any>
  extends Omit<
    OperationDef<RequestParts, AnyObject | undefined, z.ZodType, OperationKind>,
    "handler" | "confirm" | "mcp" | "agent"
  > {
  readonly context: OperationKind;
  /** the operation's input as JSON fields (no query-string coercions), before the MCP door's changes */
  readonly jsonInput: ObjectSchema;
  mcp?: McpDoor<I>;
  agent?: AgentDoor<I>;
  confirm?(input: I): string | null;
  handler(ctx: AnyOperationContext, input: I): Promise<A | Reply<A>>;
}

/** Declares an operation; the catalogue is the composition root's list (src/wiring.ts), not a side effect of this call. */
export function defineOperation<
  R extends RequestParts = Record<never, never>,
  I extends AnyObject | undefined = undefined,
  O extends z.ZodType = z.ZodType,
  K extends OperationKind = "tenant",
>(def: OperationDef<R, I, O, K>): Operation<InputOf<R, I>, Answer<O>> {
  const op = { ...def, context: def.context ?? "tenant" } as unknown as Operation;
  assertWellFormed(op);
  return Object.freeze({ ...op, jsonInput: jsonInputOf(op) }) as Operation<InputOf<R, I>, Answer<O>>;
}

/** The declaration's own rules, checked once when the module loads (a mistake fails every test at once). */
function assertWellFormed(op: Operation) {
  const fail = (why: string) => {
    throw new Error(`operation ${op.name}: ${why}`);
  };
  const rest = [op.operationId, op.method, op.path].filter((v) => v !== undefined).length;
  if (rest !== 0 && rest !== 3) fail("a REST door needs operationId, method and path together");
  if (rest === 3 && !KIND_PREFIX[op.context].test(op.path!))
    fail(`a ${op.context} operation's path must match ${KIND_PREFIX[op.context]} (${op.path})`);
  if (rest === 3 && op.input) fail("a REST operation's input is its request parts, not `input`");
  if (rest === 0 && op.request) fail("request parts belong to a REST door (give method, path and operationId)");
  if (rest === 0 && !op.mcp && !op.agent && !op.console) fail("an operation opens at least one door");
  if (op.minRole && op.context !== "tenant") fail("minRole is a tenant role: only tenant operations have one");
  if ((op.status === 204) !== (op.output === noContent)) fail("status 204 and output noContent go together");
  const r = op.request ?? {};
  if ([r.body, r.form, r.upload].filter(Boolean).length > 1) fail("one request body: JSON body, form or upload");
  if (r.bodyField && !r.body) fail("bodyField names the input field of a JSON body");
  if (r.body && !r.bodyField && !(r.body as ObjectSchema).shape)
    fail("a JSON body that is not a z.object comes under a bodyField");
  if (fileOf(op.output) && (op.mcp || op.agent)) fail("a file answer is REST only (no MCP or agent door)");
  if (op.mcp && op.context === "tenant" && !(op.mcp.scopes ?? op.scopes).length)
    fail("an MCP tool acting for a tenant needs the scopes that admit it");
  if (op.mcp && op.context !== "tenant" && op.scopes.length)
    fail("a platform or agency MCP tool is offered by the session's kind, not by scopes (scopes: [])");
  if (op.mcp && op.context === "user") fail("MCP has no user-level (cross-tenant) tools yet");
  if (op.agent && op.context !== "tenant") fail("agents act on one tenant: only tenant operations have an agent door");
}

const shapeOf = (s: AnyObject | undefined): z.ZodRawShape =>
  s && (s as ObjectSchema).shape ? (s as ObjectSchema).shape : {};

/**
 * Every input field of the operation, path then query then headers then body (JSON, form or upload),
 * as one object of JSON-typed fields; an operation without REST: its `input` itself.
 */
export function jsonInputOf(op: Pick<Operation, "request" | "input">): ObjectSchema {
  if (op.input) {
    if (!(op.input as ObjectSchema).shape) throw new Error("an operation's input is a z.object");
    return op.input as ObjectSchema;
  }
  const r = op.request ?? {};
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shapeOf(r.params))) shape[k] = v as z.ZodType;
  for (const [k, v] of Object.entries(shapeOf(r.query))) shape[k] = jsonField(v as z.ZodType);
  for (const [k, v] of Object.entries(shapeOf(r.headers))) shape[k] = v as z.ZodType;
  // a body under its own field keeps its own rules there
  const body = r.bodyField ? undefined : (r.body as AnyObject | undefined);
  if (r.bodyField) shape[r.bodyField] = r.body!;
  for (const part of [body, r.form, r.upload?.input])
    for (const [k, v] of Object.entries(shapeOf(part))) shape[k] = v as z.ZodType;
  // the objects' own rules (a range at most N days, ratingMin <= ratingMax) hold for every door
  const checks = [r.params, r.query, r.headers, body, r.form, r.upload?.input].flatMap((s) =>
    s ? (defOf(s as z.ZodType).checks ?? []) : [],
  );
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
export const pageLimit = (p: { default: number; max: number }) => z.number().int().min(1).max(p.max).default(p.default);

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
  const door: McpDoor = op.mcp ?? { title: op.summary };
  // a door that changes nothing offers the operation's input itself (its object rules included)
  if (!door.omit && !door.fixed && !door.limit && !door.required && !door.describe && !door.rename) return op.jsonInput;
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
  if (!op.agent?.defaults && !op.agent?.rename) return op.jsonInput;
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

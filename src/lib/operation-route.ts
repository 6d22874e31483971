import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { agencyScope, platformSvc, svc } from "../middleware/service-context";
import { assertAgencyAdmin, assertPlatformAdmin, requireRole } from "../middleware/tenant";
import { ApiError, unauthenticated, validationError } from "./errors";
import { hasRest } from "./has-rest";
import { createRouter, json, TENANT_SECURITY, USER_SECURITY } from "./openapi";
import {
  type AnyOperationContext,
  type BodyLimit,
  bodyOf,
  type FileAnswer,
  fileOf,
  fileResponse,
  type Operation,
  type OperationContext,
  type OperationKind,
  Reply,
} from "./operation";

/*
 * The REST door of the catalogue (src/lib/operation.ts): each operation's createRoute and a thin
 * handler that reads the validated path, query, headers and body (JSON, form or the operation's own
 * upload reader) into one input, builds the context of the operation's kind and answers what the
 * handler returns (JSON with the declared status, a `reply` with its own status and headers, a file or
 * stream, or 204). src/app.ts mounts `restRoutes(OPERATIONS)`: no module mounts an operation itself.
 */

const SUCCESS_TEXT: Record<number, string> = { 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content" };

/** The security each kind of operation declares: /v1 needs the tenant header too. */
const securityOf = (kind: OperationKind) => (kind === "tenant" ? TENANT_SECURITY : USER_SECURITY);

/** The createRoute of an operation, as the OpenAPI document shows it. */
export function routeConfigOf(op: Operation): RouteConfig {
  if (!hasRest(op)) throw new Error(`${op.name} has no REST door`);
  const r = op.request ?? {};
  const status = op.status ?? 200;
  const file = fileOf(op.output);
  const text = op.statusText ?? SUCCESS_TEXT[status] ?? "OK";
  const success =
    status === 204
      ? { description: text }
      : file
        ? { description: op.statusText ?? file.description, content: { [file.mediaType]: { schema: z.string() } } }
        : json(op.output, text);
  if (op.responseHeaders) Object.assign(success, { headers: op.responseHeaders });
  const others = Object.fromEntries(Object.entries(op.statuses ?? {}).map(([s, d]) => [s, json(op.output, d)]));
  const body = r.body
    ? { required: r.bodyRequired ?? true, content: { "application/json": { schema: r.body } } }
    : r.form
      ? { required: true, content: { "multipart/form-data": { schema: r.form } } }
      : r.upload
        ? { required: true, content: r.upload.content }
        : undefined;
  const middleware: MiddlewareHandler<AppEnv>[] = [
    ...(op.minRole ? [requireRole(op.minRole)] : []),
    ...(r.bodyLimit ? [limitOf(r.bodyLimit)] : []),
  ];
  return createRoute({
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    tags: op.tags,
    security: securityOf(op.context),
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(middleware.length ? { middleware } : {}),
    request: {
      ...(r.params ? { params: r.params } : {}),
      ...(r.query ? { query: r.query } : {}),
      ...(r.headers ? { headers: r.headers } : {}),
      ...(body ? { body } : {}),
    },
    responses: { [status]: success, ...others, ...(op.errors ?? {}) },
  } as RouteConfig);
}

/** A cap on the request body: 413 PAYLOAD_TOO_LARGE with the operation's message and details. */
const limitOf = (l: BodyLimit) =>
  bodyLimit({
    maxSize: l.bytes,
    onError: () => {
      throw new ApiError("PAYLOAD_TOO_LARGE", l.message, l.details);
    },
  });

/** The scopes of the request's credential: an API key's own; a signed-in user holds all (the role decides). */
const scopesOf = (c: Context<AppEnv>) => {
  const p = c.var.principal;
  return p.kind === "api_key" ? p.scopes : ("all" as const);
};

/** The operation's context on a /v1 request: the ServiceContext and the scopes of an API key (a user has all). */
export const operationContext = (c: Context<AppEnv>): OperationContext => ({
  ...svc(c),
  scopes: scopesOf(c),
  access: c.var.access,
});

/**
 * The context of an operation of this kind on a request that passed the kind's guard (tenantContext,
 * requirePlatformAdmin, requireAgencyScope, or a user's credential for /me): REST and the console's
 * invoke build it here, the same way.
 */
export function contextFor(kind: OperationKind, c: Context<AppEnv>): AnyOperationContext {
  switch (kind) {
    case "tenant":
      return operationContext(c);
    case "platform":
      return { ...platformSvc(c), scopes: scopesOf(c) };
    case "agency":
      return { ...platformSvc(c), scopes: scopesOf(c), agencies: agencyScope(c) };
    case "user": {
      const p = c.var.principal;
      if (p.kind !== "user") throw unauthenticated("A user credential is required");
      return {
        ...platformSvc(c),
        actor: { type: "user", userId: p.userId, via: "tenant" },
        scopes: "all",
        userId: p.userId,
        principal: p,
      };
    }
  }
}

/** The validated path, query, headers and body of the request as one input. */
async function inputOf(c: Context<AppEnv>, op: Operation): Promise<Record<string, unknown>> {
  const r = op.request ?? {};
  const req = c.req as unknown as { valid(target: string): Record<string, unknown> | undefined };
  return {
    ...(r.params ? req.valid("param") : {}),
    ...(r.query ? req.valid("query") : {}),
    ...(r.headers ? req.valid("header") : {}),
    ...(r.body ? (r.bodyField ? { [r.bodyField]: req.valid("json") } : (req.valid("json") ?? {})) : {}),
    ...(r.form ? req.valid("form") : {}),
    ...(r.upload ? await r.upload.read(c.req) : {}),
  };
}

/** The handler's answer as the HTTP response the operation declares. */
export function respond(c: Context<AppEnv>, op: Operation, answer: unknown): Response {
  const { body, status, headers } =
    answer instanceof Reply
      ? { body: answer.body, status: answer.status ?? op.status ?? 200, headers: answer.headers ?? {} }
      : { body: answer, status: op.status ?? 200, headers: {} as Record<string, string> };
  if (status === 204) return c.body(null, 204, headers);
  if (fileOf(op.output)) return fileResponse(op.output, body as FileAnswer, { status, headers });
  return c.json(body as object, status as 200, headers);
}

/** `[route, handler]` for OpenAPIHono's `.openapi(...)`. */
export function routeOf(op: Operation) {
  const route = routeConfigOf(op);
  const handler = async (c: Context<AppEnv>) =>
    respond(c, op, await op.handler(contextFor(op.context, c), await inputOf(c, op)));
  // the handler's type is the route's (OpenAPIHono checks the response against the route's schema at run time only in tests)
  return [route, handler] as unknown as [RouteConfig, (c: Context<AppEnv>) => Promise<Response>];
}

/** A sort key that puts a literal segment before a templated one: `/things/export` is matched before `/things/{id}`. */
const routeKey = (op: Operation) =>
  `${op
    .path!.split("/")
    .map((seg) => (seg.startsWith("{") ? "1" : `0${seg}`))
    .join("/")} ${op.method}`;

/** Every REST operation of the catalogue on one router (src/app.ts mounts it), literal paths before templated ones. */
export function restRoutes(operations: readonly Operation[]) {
  const router = createRouter();
  for (const op of [...operations].filter(hasRest).sort((a, b) => (routeKey(a) < routeKey(b) ? -1 : 1)))
    router.openapi(...routeOf(op));
  return router;
}
/** What a page hands an operation: the same parts a REST request has, as REST's validators receive them. */
export interface OperationCall {
  params?: Record<string, string>;
  /** query-string values (strings), coerced by the operation's REST query schema */
  query?: Record<string, string | undefined>;
  /** JSON values, checked by the operation's REST body schema */
  body?: Record<string, unknown>;
  /** request headers by their lower-case names (an Idempotency-Key), checked by the operation's REST header schema */
  headers?: Record<string, string>;
  /** multipart fields (a file among them), checked by the operation's REST form schema */
  form?: Record<string, unknown>;
}

/**
 * The console's door of an operation (docs/console.md): the REST route without HTTP. The same guard of
 * its kind (a platform admin for /admin, an agency admin for /agency, a person for /me), the same role
 * check (`requireRole(minRole)`), the same schemas for path, query and body (a failure is the same 400
 * VALIDATION_ERROR), the same handler under the same context: a page adds no rule of its own.
 * Call a tenant operation inside the tenant fence (enterTenant), as REST does.
 */
export async function callOperation<T>(c: Context<AppEnv>, op: Operation, call: OperationCall = {}): Promise<T> {
  // the door is declared (`console: {}`): the catalogue says which operations a page calls
  if (!op.console) throw new Error(`${op.name} has no console door`);
  // the guards src/app.ts puts on /admin/* and /agency/* (requirePlatformAdmin, requireAgencyScope)
  if (op.context === "platform") assertPlatformAdmin(c.var.principal);
  if (op.context === "agency") assertAgencyAdmin(c.var.principal);
  // REST's own role middleware, run as REST runs it (it throws 403 FORBIDDEN for a lower role)
  if (op.minRole) await requireRole(op.minRole)(c, async () => {});
  const r = op.request ?? {};
  const part = (schema: z.ZodType | undefined, value: unknown) => {
    if (!schema) return {};
    const parsed = schema.safeParse(value ?? {});
    if (!parsed.success)
      throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
    return parsed.data as Record<string, unknown>;
  };
  const input = {
    ...part(r.params, call.params),
    ...part(
      r.query,
      Object.fromEntries(Object.entries(call.query ?? {}).filter(([, v]) => v !== undefined && v !== "")),
    ),
    ...part(r.headers, call.headers),
    ...(r.bodyField ? { [r.bodyField]: part(r.body, call.body) } : part(r.body, call.body)),
    ...part(r.form, call.form),
  };
  // the operation's output schema is the REST response's: T is the caller's name for it (z.infer of that schema)
  return bodyOf(await op.handler(contextFor(op.context, c), input as never)) as T;
}

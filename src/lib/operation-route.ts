import { createRoute, type RouteConfig, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { svc } from "../middleware/service-context";
import { requireRole } from "../middleware/tenant";
import { validationError } from "./errors";
import { json, TENANT_SECURITY } from "./openapi";
import type { Operation, OperationContext } from "./operation";

/*
 * The REST door of an operation (src/lib/operation.ts): its createRoute and a thin handler that reads
 * the validated path, query and body into one input and calls the operation's handler. A module's
 * routes.ts mounts it with `.openapi(...routeOf(op))`.
 */

/** The createRoute of an operation, as the OpenAPI document shows it. */
export function routeConfigOf(op: Operation): RouteConfig {
  const r = op.request ?? {};
  return createRoute({
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    tags: op.tags,
    security: TENANT_SECURITY,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.minRole ? { middleware: [requireRole(op.minRole)] as const } : {}),
    request: {
      ...(r.params ? { params: r.params } : {}),
      ...(r.query ? { query: r.query } : {}),
      ...(r.body
        ? { body: { required: r.bodyRequired ?? true, content: { "application/json": { schema: r.body } } } }
        : {}),
    },
    responses: { [op.status ?? 200]: json(op.output, op.status === 201 ? "Created" : "OK"), ...(op.errors ?? {}) },
  } as RouteConfig);
}

/** The operation's context on a /v1 request: the ServiceContext and the scopes of an API key (a user has all). */
export const operationContext = (c: Context<AppEnv>): OperationContext => {
  const p = c.var.principal;
  return { ...svc(c), scopes: p.kind === "api_key" ? p.scopes : "all" };
};

/** The validated path, query and body of the request as one input. */
function inputOf(c: Context<AppEnv>, op: Operation): Record<string, unknown> {
  const r = op.request ?? {};
  const req = c.req as unknown as { valid(target: string): Record<string, unknown> | undefined };
  return {
    ...(r.params ? req.valid("param") : {}),
    ...(r.query ? req.valid("query") : {}),
    ...(r.body ? (req.valid("json") ?? {}) : {}),
  };
}

/** `[route, handler]` for OpenAPIHono's `.openapi(...)`. */
export function routeOf(op: Operation) {
  const route = routeConfigOf(op);
  const handler = async (c: Context<AppEnv>) =>
    c.json((await op.handler(operationContext(c), inputOf(c, op) as never)) as object, (op.status ?? 200) as 200);
  // the handler's type is the route's (OpenAPIHono checks the response against the route's schema at run time only in tests)
  return [route, handler] as unknown as [RouteConfig, (c: Context<AppEnv>) => Promise<Response>];
}

/** What a page hands an operation: the same parts a REST request has, as REST's validators receive them. */
export interface OperationCall {
  params?: Record<string, string>;
  /** query-string values (strings), coerced by the operation's REST query schema */
  query?: Record<string, string | undefined>;
  /** JSON values, checked by the operation's REST body schema */
  body?: Record<string, unknown>;
}

/**
 * The console's door of an operation (docs/console.md): the REST route without HTTP. The same role check
 * (`requireRole(minRole)`), the same schemas for path, query and body (a failure is the same 400
 * VALIDATION_ERROR), the same handler under the same ServiceContext: a page adds no rule of its own.
 * Call it inside the tenant fence (enterTenant), as REST does.
 */
export async function callOperation<T>(c: Context<AppEnv>, op: Operation, call: OperationCall = {}): Promise<T> {
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
    ...part(r.body, call.body),
  };
  // the operation's output schema is the REST response's: T is the caller's name for it (z.infer of that schema)
  return (await op.handler(operationContext(c), input as never)) as T;
}

import { type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import type { AppEnv } from "../app-env";
import { validationError } from "./errors";

export { z };

export const ErrorResponseSchema = z
  .object({
    error: z.string(),
    code: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("ErrorResponse");

export const PageInfoSchema = z
  .object({
    hasNextPage: z.boolean(),
    hasPreviousPage: z.boolean(),
    startCursor: z.string().nullable(),
    endCursor: z.string().nullable(),
  })
  .openapi("PageInfo");

export const PageQuerySchema = z.object({
  cursor: z.string().optional().openapi({ description: "Opaque cursor from a previous pageInfo.endCursor" }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const paged = <T extends ZodType>(item: T) =>
  z.object({ data: z.array(item), pageInfo: PageInfoSchema, total: z.number().int() });

export const IdParam = z.object({ id: z.string().min(1).max(64) });

/** ISO 8601 date-time, as stored. */
export const DateTime = z.string().openapi({ format: "date-time", example: "2026-01-01T00:00:00.000Z" });

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorResponseSchema } },
});

/** Standard error responses for a route, by status. */
export const errors = {
  400: error("Invalid request (VALIDATION_ERROR, TENANT_REQUIRED, ...)"),
  401: error("Missing, invalid or expired credential"),
  403: error("Authenticated but not allowed"),
  404: error("Not found in this tenant"),
  409: error("Conflict or state move not allowed"),
  413: error("Payload too large"),
  422: error("Unprocessable"),
  429: error("Rate limited"),
} as const;

/**
 * 503 TENANT_MOVING: a write to a tenant whose rows are being moved to another shard
 * (docs/scaling.md); the client retries after Retry-After seconds.
 */
export const tenantMovingResponse = {
  ...error(
    "The tenant is being moved to another shard (TENANT_MOVING): writes are refused for a few seconds; retry after Retry-After",
  ),
  headers: z.object({
    "Retry-After": z.string().openapi({ description: "Seconds to wait before retrying", example: "5" }),
  }),
};

/** A /v1 write: tenant-scoped (x-tenant-id) and not a read; tenantContext fences exactly these while the tenant moves. */
const isTenantWrite = (method: string, security: unknown) =>
  !["get", "head", "options"].includes(method.toLowerCase()) &&
  Array.isArray(security) &&
  security.some((s) => typeof s === "object" && s !== null && "tenantHeader" in s);

/** Documents the 503 TENANT_MOVING (with Retry-After) on every tenant-scoped write, in one place. */
export function documentTenantMoving(registry: OpenAPIHono["openAPIRegistry"]) {
  for (const d of registry.definitions) {
    if (d.type !== "route" || !isTenantWrite(d.route.method, d.route.security)) continue;
    d.route.responses[503] ??= tenantMovingResponse;
  }
}

export const stdErrors = { 400: errors[400], 401: errors[401], 403: errors[403] } as const;
export const stdErrorsWithNotFound = { ...stdErrors, 404: errors[404] } as const;

export const json = <T extends ZodType>(schema: T, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});

/** A required JSON request body: a missing or non-JSON body is a 400, not an empty object. */
export const jsonBody = <T extends ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const TENANT_SECURITY = [{ bearerAuth: [], tenantHeader: [] }];
export const USER_SECURITY = [{ bearerAuth: [] }];

/** Turns zod failures into the one VALIDATION_ERROR envelope. */
export const defaultHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (!result.success) {
    throw validationError(result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  }
};

export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook });

/**
 * What a module exports its routes as. A chain of `.openapi()` calls types the router with every route's
 * schema (hono's typed client, which nothing here uses); exported that way, every file that mounted or
 * imported it made the type checker rebuild the whole chain again (src/app.ts alone took 17 s of the
 * typecheck). Annotated with this, the chain is checked once, in its own file.
 */
// biome-ignore lint/suspicious/noExplicitAny: the chained schema type is dropped on purpose (see above)
export type Router = OpenAPIHono<AppEnv, any, any>;

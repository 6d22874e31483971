import { OpenAPIHono, z, type Hook } from "@hono/zod-openapi";
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
    throw validationError(
      result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    );
  }
};

export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook });

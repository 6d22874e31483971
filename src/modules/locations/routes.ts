import { createRoute, z } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import { importLocationsCsv } from "./bulk";
import { CreateLocationBody, LocationSchema, UpdateLocationBody } from "./schemas";
import { createLocation, updateLocation } from "./service";
import { readCsvUpload } from "./upload";

const tags = ["Locations"];

const create = createRoute({
  method: "post",
  path: "/v1/locations",
  tags,
  security: TENANT_SECURITY,
  summary: "Create a location (manager)",
  operationId: "createLocation",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateLocationBody) },
  responses: { 201: json(LocationSchema, "Created"), ...stdErrors, 409: errors[409] },
});

const update = createRoute({
  method: "patch",
  path: "/v1/locations/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update a location (manager)",
  operationId: "updateLocation",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(UpdateLocationBody) },
  responses: { 200: json(LocationSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const BulkResultSchema = z
  .object({
    imported: z.number().int().openapi({ description: "new locations" }),
    updated: z.number().int().openapi({ description: "existing locations matched on externalId" }),
    errors: z.array(
      z.object({
        row: z.number().int().openapi({ description: "1 = the first row after the header" }),
        reason: z.string(),
      }),
    ),
  })
  .openapi("LocationBulkResult");

const bulk = createRoute({
  method: "post",
  path: "/v1/locations/bulk",
  tags,
  security: TENANT_SECURITY,
  summary: "Import locations from CSV (manager)",
  operationId: "importLocations",
  description:
    "multipart/form-data with a `file` field, or a text/csv body. Header row; columns (case and separators ignored): name (required), " +
    "brand (slug or id; default the oldest active brand), region (id, name or code), addressLine1, addressLine2, city, state, postalCode, " +
    "country, timezone, phone, email, websiteUrl, googlePlaceId, yelpBusinessId, facebookPageId, latitude, longitude, externalId. " +
    "Upserts on externalId. Columns present are written (blank clears; blank brand/country/timezone keeps or defaults); absent columns are untouched. " +
    "Invalid rows are reported in errors and skipped. Over 5,000 rows or 10 MB: 413.",
  middleware: [canManage] as const,
  request: {
    body: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: z.object({
            file: z
              .unknown()
              .optional()
              .openapi({ type: "string", format: "binary", description: "the CSV file (required)" }),
          }),
        },
        "text/csv": { schema: z.string() },
      },
    },
  },
  responses: { 200: json(BulkResultSchema), ...stdErrors, 413: errors[413] },
});

export const locationRoutes: Router = createRouter()
  .openapi(bulk, async (c) => c.json(await importLocationsCsv(svc(c), await readCsvUpload(c.req)), 200))
  .openapi(create, async (c) => c.json(await createLocation(svc(c), c.req.valid("json")), 201))
  .openapi(update, async (c) =>
    c.json(await updateLocation(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );

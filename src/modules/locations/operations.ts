import { z } from "@hono/zod-openapi";
import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation, upload } from "../../lib/operation";
import { importLocationsCsv } from "./bulk";
import { findLocations } from "./finder";
import {
  CreateLocationBody,
  LocationBulkResultSchema,
  LocationListQuery,
  LocationSchema,
  UpdateLocationBody,
} from "./schemas";
import { createLocation, getLocation, listLocations, updateLocation } from "./service";
import { readCsvUpload } from "./upload";

// The locations operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const listLocationsOperation = defineOperation({
  name: "location.list",
  operationId: "listLocations",
  method: "get",
  path: "/v1/locations",
  tags: ["Locations"],
  summary: "List locations, newest first",
  description:
    "The business's locations (stores, clinics, offices), newest first, with address, review-site ids, coordinates " +
    "and brand. Use it to find a locationId for other tools.",
  request: { query: LocationListQuery },
  output: paged(LocationSchema).openapi("LocationPage"),
  errors: stdErrors,
  scopes: ["read:locations"],
  access: "read",
  mcp: {
    title: "List locations",
    agencyAware: true,
    limit: { default: 50, max: 200 },
  },
  console: {},
  handler: async (ctx, input) => listLocations(ctx, input),
});

export const getLocationOperation = defineOperation({
  name: "location.get",
  operationId: "getLocation",
  method: "get",
  path: "/v1/locations/{id}",
  tags: ["Locations"],
  summary: "Get a location",
  description: "One location: name, brand, timezone, review-site ids (googlePlaceId), contact details.",
  request: { params: IdParam },
  output: LocationSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:locations"],
  access: "read",
  agent: { scopes: ["read:locations"], rename: { id: "locationId" } },
  console: {},
  handler: async (ctx, input) => getLocation(ctx, input.id),
});

export const createLocationOperation = defineOperation({
  name: "location.create",
  operationId: "createLocation",
  method: "post",
  path: "/v1/locations",
  tags: ["Locations"],
  summary: "Create a location (manager)",
  request: { body: CreateLocationBody },
  status: 201,
  output: LocationSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (ctx, input) => createLocation(ctx, input),
});

export const updateLocationOperation = defineOperation({
  name: "location.update",
  operationId: "updateLocation",
  method: "patch",
  path: "/v1/locations/{id}",
  tags: ["Locations"],
  summary: "Update a location (manager)",
  request: { params: IdParam, body: UpdateLocationBody },
  output: LocationSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, { id, ...patch }) => updateLocation(ctx, id, patch),
});

export const importLocationsOperation = defineOperation({
  name: "location.import-csv",
  operationId: "importLocations",
  method: "post",
  path: "/v1/locations/bulk",
  tags: ["Locations"],
  summary: "Import locations from CSV (manager)",
  description:
    "multipart/form-data with a `file` field, or a text/csv body. Header row; columns (case and separators ignored): name (required), " +
    "brand (slug or id; default the oldest active brand), region (id, name or code), addressLine1, addressLine2, city, state, postalCode, " +
    "country, timezone, phone, email, websiteUrl, googlePlaceId, yelpBusinessId, facebookPageId, latitude, longitude, externalId. " +
    "Upserts on externalId. Columns present are written (blank clears; blank brand/country/timezone keeps or defaults); absent columns are untouched. " +
    "Invalid rows are reported in errors and skipped. Over 5,000 rows or 10 MB: 413.",
  request: {
    upload: upload({
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
      // the file's text, whichever way it came (a console form can pass the text itself)
      input: z.object({ csv: z.string().describe("the CSV text, header row first") }),
      read: async (request) => ({ csv: await readCsvUpload(request) }),
    }),
  },
  output: LocationBulkResultSchema,
  errors: { ...stdErrors, 413: errors[413] },
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  handler: async (ctx, input) => importLocationsCsv(ctx, input.csv),
});

export const findLocationsOperation = defineOperation({
  name: "location.finder",
  summary: "Find locations near a point or by text",
  description:
    "Finds active locations near lat/lng (within radiusKm, default 50; nearest first, with distanceKm) and/or whose " +
    "name, address, city, state or postal code contains query. Use it for 'our store closest to ...' or 'the Springfield store'.",
  input: z.object({
    lat: z.number().min(-90).max(90).optional(),
    lng: z.number().min(-180).max(180).optional(),
    radiusKm: z.number().positive().max(20000).optional(),
    query: z.string().trim().min(1).max(200).optional().describe("text in name, address, city, state or postal code"),
    limit: z.number().int().min(1).max(100).default(10),
  }),
  output: z.object({
    data: z.array(
      LocationSchema.extend({
        distanceKm: z.number().nullable(),
      }),
    ),
    total: z.number().int(),
  }),
  scopes: ["read:locations"],
  access: "read",
  mcp: { title: "Find locations near a point or by text" },
  handler: async (ctx, input) => findLocations(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listLocationsOperation,
  getLocationOperation,
  createLocationOperation,
  updateLocationOperation,
  importLocationsOperation,
  findLocationsOperation,
];

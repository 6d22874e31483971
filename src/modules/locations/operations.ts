import { z } from "@hono/zod-openapi";
import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { findLocations } from "./finder";
import { LocationListQuery, LocationSchema } from "./schemas";
import { getLocation, listLocations } from "./service";

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
  handler: async (ctx, input) => getLocation(ctx, input.id),
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
export const operations: Operation[] = [listLocationsOperation, getLocationOperation, findLocationsOperation];

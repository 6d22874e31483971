import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
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
    "Lists the business's locations (stores, clinics, offices), newest first, with address, phone, review-site ids " +
    "(Google place id, Yelp, Facebook), coordinates and brand. Use it to find a locationId for other tools. " +
    "Filter with isActive, brandId or regionId; page with cursor (pageInfo.endCursor of the previous page).",
  request: { query: LocationListQuery },
  output: paged(LocationSchema).openapi("LocationPage"),
  errors: stdErrors,
  scopes: ["read:locations"],
  access: "read",
  mcp: {
    title: "List locations",
    agencyAware: true,
    limit: { default: 50, max: 200 },
    describe: {
      isActive: "true: only active locations; false: only deactivated ones",
      cursor: "pageInfo.endCursor from the previous page",
    },
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

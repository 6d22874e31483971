import { createRoute } from "@hono/zod-openapi";
import { createRouter, errors, IdParam, json, jsonBody, paged, stdErrors, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import { CreateLocationBody, LocationListQuery, LocationSchema, UpdateLocationBody } from "./schemas";
import { createLocation, getLocation, listLocations, updateLocation } from "./service";

const tags = ["Locations"];

const list = createRoute({
  method: "get", path: "/v1/locations", tags, security: TENANT_SECURITY, summary: "List locations, newest first",
  request: { query: LocationListQuery },
  responses: { 200: json(paged(LocationSchema).openapi("LocationPage")), ...stdErrors },
});

const create = createRoute({
  method: "post", path: "/v1/locations", tags, security: TENANT_SECURITY, summary: "Create a location (manager)",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateLocationBody) },
  responses: { 201: json(LocationSchema, "Created"), ...stdErrors, 409: errors[409] },
});

const get = createRoute({
  method: "get", path: "/v1/locations/{id}", tags, security: TENANT_SECURITY, summary: "Get a location",
  request: { params: IdParam },
  responses: { 200: json(LocationSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch", path: "/v1/locations/{id}", tags, security: TENANT_SECURITY, summary: "Update a location (manager)",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(UpdateLocationBody) },
  responses: { 200: json(LocationSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const locationRoutes = createRouter()
  .openapi(list, async (c) => c.json(await listLocations(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createLocation(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getLocation(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateLocation(svc(c), c.req.valid("param").id, c.req.valid("json")), 200));

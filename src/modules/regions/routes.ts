import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import { CreateRegionBody, RegionListQuery, RegionSchema, UpdateRegionBody } from "./schemas";
import { createRegion, deleteRegion, getRegion, listRegions, updateRegion } from "./service";

const tags = ["Regions"];
const manage = [canManage];

const list = createRoute({
  method: "get",
  path: "/v1/regions",
  tags,
  security: TENANT_SECURITY,
  summary: "List regions, newest first",
  operationId: "listRegions",
  request: { query: RegionListQuery },
  responses: { 200: json(paged(RegionSchema).openapi("RegionPage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/regions",
  tags,
  security: TENANT_SECURITY,
  middleware: manage,
  summary: "Create a region (manager)",
  operationId: "createRegion",
  request: { body: jsonBody(CreateRegionBody) },
  responses: { 201: json(RegionSchema, "Created"), ...stdErrors, 409: errors[409] },
});

const get = createRoute({
  method: "get",
  path: "/v1/regions/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a region",
  operationId: "getRegion",
  request: { params: IdParam },
  responses: { 200: json(RegionSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/regions/{id}",
  tags,
  security: TENANT_SECURITY,
  middleware: manage,
  summary: "Rename or recode a region (manager)",
  operationId: "updateRegion",
  request: { params: IdParam, body: jsonBody(UpdateRegionBody) },
  responses: { 200: json(RegionSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/regions/{id}",
  tags,
  security: TENANT_SECURITY,
  middleware: manage,
  operationId: "deleteRegion",
  summary: "Delete a region (manager); its locations are kept with no region",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

export const regionRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listRegions(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createRegion(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getRegion(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateRegion(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteRegion(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });

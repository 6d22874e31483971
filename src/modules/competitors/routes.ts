import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
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
import { refreshCompetitor } from "./refresh";
import { CompetitorListQuery, CompetitorSchema, CreateCompetitorBody, UpdateCompetitorBody } from "./schemas";
import { createCompetitor, deleteCompetitor, getCompetitor, listCompetitors, updateCompetitor } from "./service";

const tags = ["Competitors"];

const list = createRoute({
  method: "get",
  path: "/v1/competitors",
  tags,
  security: TENANT_SECURITY,
  summary: "List tracked competitors, newest first",
  operationId: "listCompetitors",
  request: { query: CompetitorListQuery },
  responses: { 200: json(paged(CompetitorSchema).openapi("CompetitorPage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/competitors",
  tags,
  security: TENANT_SECURITY,
  summary: "Track a competitor of a location (manager)",
  operationId: "createCompetitor",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateCompetitorBody) },
  responses: { 201: json(CompetitorSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/competitors/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a competitor",
  operationId: "getCompetitor",
  request: { params: IdParam },
  responses: { 200: json(CompetitorSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/competitors/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update a competitor (manager)",
  operationId: "updateCompetitor",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(UpdateCompetitorBody) },
  responses: { 200: json(CompetitorSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/competitors/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Stop tracking a competitor (manager)",
  operationId: "deleteCompetitor",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

const refresh = createRoute({
  method: "post",
  path: "/v1/competitors/{id}/refresh",
  tags,
  security: TENANT_SECURITY,
  summary: "Refresh rating and review count now (manager)",
  operationId: "refreshCompetitor",
  description:
    "Reads Yelp Fusion GET /v3/businesses/{yelpBusinessId} with the tenant's Yelp integration key. lastRefreshStatus: ok, error (the site's message in lastRefreshError), no_connection, no_site_ids. A sweep refreshes every competitor daily.",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 200: json(CompetitorSchema), ...stdErrorsWithNotFound },
});

export const competitorRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listCompetitors(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createCompetitor(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getCompetitor(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) =>
    c.json(await updateCompetitor(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(remove, async (c) => {
    await deleteCompetitor(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(refresh, async (c) => c.json(await refreshCompetitor(svc(c), c.req.valid("param").id), 200));

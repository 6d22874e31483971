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
import { CreateWidgetBody, UpdateWidgetBody, WidgetListQuery, WidgetSchema } from "./schemas";
import { createWidget, deleteWidget, getWidget, listWidgets, updateWidget } from "./service";

const tags = ["Widgets"];

const list = createRoute({
  method: "get",
  path: "/v1/widgets",
  tags,
  security: TENANT_SECURITY,
  summary: "List review widgets, newest first",
  operationId: "listWidgets",
  request: { query: WidgetListQuery },
  responses: { 200: json(paged(WidgetSchema).openapi("WidgetPage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/widgets",
  tags,
  security: TENANT_SECURITY,
  summary: "Create a review widget (manager)",
  operationId: "createWidget",
  description:
    "A review showcase for the tenant's website: the reviews of a location (or every location) filtered by minRating, sites, count and order. " +
    "The filters are printed in the widget's footer (e.g. Showing 5★ and 4★ Google reviews, newest first) and the average shown covers every review " +
    "of the chosen sites. Embed with `embed.script` (shadow root) or `embed.iframe` (no JavaScript).",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateWidgetBody) },
  responses: { 201: json(WidgetSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/widgets/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a review widget",
  operationId: "getWidget",
  request: { params: IdParam },
  responses: { 200: json(WidgetSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/widgets/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update a review widget (manager)",
  operationId: "updateWidget",
  description: "isActive false: the public URLs answer 404. Changes show within a minute (browser cache 60 s).",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(UpdateWidgetBody) },
  responses: { 200: json(WidgetSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/widgets/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Delete a review widget (manager)",
  operationId: "deleteWidget",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

export const widgetRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listWidgets(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createWidget(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getWidget(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateWidget(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteWidget(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });

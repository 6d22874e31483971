import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  IdParam,
  json,
  jsonBody,
  type Router,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import { LocationVariablesSchema, PutLocationVariablesBody } from "./variables.schemas";
import { getLocationVariables, putLocationVariables } from "./variables.service";

const tags = ["Locations"];

const get = createRoute({
  method: "get",
  path: "/v1/locations/{id}/variables",
  tags,
  security: TENANT_SECURITY,
  operationId: "getLocationVariables",
  summary: "A location's custom template variables",
  request: { params: IdParam },
  responses: { 200: json(LocationVariablesSchema), ...stdErrorsWithNotFound },
});

const put = createRoute({
  method: "put",
  path: "/v1/locations/{id}/variables",
  tags,
  security: TENANT_SECURITY,
  operationId: "updateLocationVariables",
  summary: "Replace a location's custom template variables (manager)",
  description: "Each key becomes a template token {{key}}. Keys are token names and may not shadow a built-in token.",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(PutLocationVariablesBody) },
  responses: { 200: json(LocationVariablesSchema), ...stdErrorsWithNotFound },
});

export const locationVariableRoutes: Router = createRouter()
  .openapi(get, async (c) => c.json(await getLocationVariables(svc(c), c.req.valid("param").id), 200))
  .openapi(put, async (c) =>
    c.json(await putLocationVariables(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );

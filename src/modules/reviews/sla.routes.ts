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
import { canAdminister } from "../../middleware/tenant";
import { CreateSlaRuleBody, SlaRuleListQuery, SlaRuleSchema, UpdateSlaRuleBody } from "./sla.schemas";
import { createSlaRule, deleteSlaRule, getSlaRule, listSlaRules, updateSlaRule } from "./sla.service";

const tags = ["Reviews"];

const list = createRoute({
  method: "get",
  path: "/v1/settings/sla-rules",
  tags,
  security: TENANT_SECURITY,
  summary: "List SLA rules",
  operationId: "listSlaRules",
  request: { query: SlaRuleListQuery },
  responses: { 200: json(paged(SlaRuleSchema).openapi("SlaRulePage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/settings/sla-rules",
  tags,
  security: TENANT_SECURITY,
  summary: "Create an SLA rule (tenant_admin)",
  operationId: "createSlaRule",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(CreateSlaRuleBody) },
  responses: { 201: json(SlaRuleSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/settings/sla-rules/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get an SLA rule",
  operationId: "getSlaRule",
  request: { params: IdParam },
  responses: { 200: json(SlaRuleSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/settings/sla-rules/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update an SLA rule (tenant_admin)",
  operationId: "updateSlaRule",
  middleware: [canAdminister] as const,
  request: { params: IdParam, body: jsonBody(UpdateSlaRuleBody) },
  responses: { 200: json(SlaRuleSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  method: "delete",
  path: "/v1/settings/sla-rules/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Delete an SLA rule (tenant_admin)",
  operationId: "deleteSlaRule",
  middleware: [canAdminister] as const,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

export const slaRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listSlaRules(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createSlaRule(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getSlaRule(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateSlaRule(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteSlaRule(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });

import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  IdParam,
  json,
  jsonBody,
  PageQuerySchema,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import {
  AutomationRuleSchema,
  AutomationRuleWithSecretSchema,
  AutomationRunSchema,
  CreateRuleBody,
  RuleListQuery,
  UpdateRuleBody,
} from "./schemas";
import { createRule, deleteRule, getRule, listRules, listRuns, updateRule } from "./service";

const tags = ["Automation rules"];
const base = { tags, security: TENANT_SECURITY } as const;

const list = createRoute({
  ...base,
  method: "get",
  path: "/v1/automation-rules",
  summary: "List automation rules",
  operationId: "listAutomationRules",
  request: { query: RuleListQuery },
  responses: { 200: json(paged(AutomationRuleSchema).openapi("AutomationRulePage")), ...stdErrors },
});

const create = createRoute({
  ...base,
  middleware: [canManage] as const,
  method: "post",
  path: "/v1/automation-rules",
  operationId: "createAutomationRule",
  summary: "Create a rule: trigger event type, conditions over its payload, actions (manager)",
  request: { body: jsonBody(CreateRuleBody) },
  responses: { 201: json(AutomationRuleWithSecretSchema, "Created"), ...stdErrors },
});

const get = createRoute({
  ...base,
  method: "get",
  path: "/v1/automation-rules/{id}",
  summary: "Get an automation rule",
  operationId: "getAutomationRule",
  request: { params: IdParam },
  responses: { 200: json(AutomationRuleSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  ...base,
  middleware: [canManage] as const,
  method: "patch",
  path: "/v1/automation-rules/{id}",
  operationId: "updateAutomationRule",
  summary: "Update a rule; conditions and actions are replaced whole (manager)",
  request: { params: IdParam, body: jsonBody(UpdateRuleBody) },
  responses: { 200: json(AutomationRuleWithSecretSchema), ...stdErrorsWithNotFound },
});

const remove = createRoute({
  ...base,
  middleware: [canManage] as const,
  method: "delete",
  path: "/v1/automation-rules/{id}",
  summary: "Delete a rule and its run log (manager)",
  operationId: "deleteAutomationRule",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

const runs = createRoute({
  ...base,
  method: "get",
  path: "/v1/automation-rules/{id}/runs",
  summary: "Run log: one entry per matching event, newest first, with each action's outcome",
  operationId: "listAutomationRuleRuns",
  request: { params: IdParam, query: PageQuerySchema },
  responses: { 200: json(paged(AutomationRunSchema).openapi("AutomationRunPage")), ...stdErrorsWithNotFound },
});

export const automationRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listRules(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createRule(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getRule(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateRule(svc(c), c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteRule(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(runs, async (c) => c.json(await listRuns(svc(c), c.req.valid("param").id, c.req.valid("query")), 200));

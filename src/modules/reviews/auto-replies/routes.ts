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
} from "../../../lib/openapi";
import { svc } from "../../../middleware/service-context";
import { canAdminister, canManage, canWrite } from "../../../middleware/tenant";
import {
  createAutoReplyRule,
  deleteAutoReplyRule,
  getAutoReplyRule,
  getAutoReplySettings,
  listAutoReplyRules,
  updateAutoReplyRule,
  updateAutoReplySettings,
} from "./rules.service";
import {
  AutoReplyListQuery,
  AutoReplyRuleListQuery,
  AutoReplyRuleSchema,
  AutoReplySchema,
  AutoReplySettingsSchema,
  CreateAutoReplyRuleBody,
  UpdateAutoReplyRuleBody,
  UpdateAutoReplySettingsBody,
} from "./schemas";
import { cancelAutoReply, getAutoReply, listAutoReplies } from "./service";

const tags = ["Reviews"];

const listRules = createRoute({
  method: "get",
  path: "/v1/auto-reply-rules",
  tags,
  security: TENANT_SECURITY,
  summary: "List auto-reply rules",
  operationId: "listAutoReplyRules",
  request: { query: AutoReplyRuleListQuery },
  responses: { 200: json(paged(AutoReplyRuleSchema).openapi("AutoReplyRulePage")), ...stdErrors },
});

const createRule = createRoute({
  method: "post",
  path: "/v1/auto-reply-rules",
  tags,
  security: TENANT_SECURITY,
  summary: "Create an auto-reply rule (manager)",
  operationId: "createAutoReplyRule",
  description:
    "Ratings of 3 or less need allowLowRatings: true; mode auto_publish needs the tenant's opt-in (PUT /v1/settings/auto-replies) and delayMinutes (5 to 1440).",
  middleware: [canManage] as const,
  request: { body: jsonBody(CreateAutoReplyRuleBody) },
  responses: { 201: json(AutoReplyRuleSchema, "Created"), ...stdErrors },
});

const getRule = createRoute({
  method: "get",
  path: "/v1/auto-reply-rules/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get an auto-reply rule",
  operationId: "getAutoReplyRule",
  request: { params: IdParam },
  responses: { 200: json(AutoReplyRuleSchema), ...stdErrorsWithNotFound },
});

const updateRule = createRoute({
  method: "patch",
  path: "/v1/auto-reply-rules/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update an auto-reply rule (manager)",
  operationId: "updateAutoReplyRule",
  middleware: [canManage] as const,
  request: { params: IdParam, body: jsonBody(UpdateAutoReplyRuleBody) },
  responses: { 200: json(AutoReplyRuleSchema), ...stdErrorsWithNotFound },
});

const deleteRule = createRoute({
  method: "delete",
  path: "/v1/auto-reply-rules/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Delete an auto-reply rule (manager)",
  operationId: "deleteAutoReplyRule",
  description:
    "Auto replies already drafted by the rule keep their course (cancel a scheduled one with POST /v1/auto-replies/{id}/cancel).",
  middleware: [canManage] as const,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...stdErrorsWithNotFound },
});

const getSettings = createRoute({
  method: "get",
  path: "/v1/settings/auto-replies",
  tags,
  security: TENANT_SECURITY,
  summary: "The tenant's auto-publish opt-in",
  operationId: "getAutoReplySettings",
  responses: { 200: json(AutoReplySettingsSchema), ...stdErrors },
});

const putSettings = createRoute({
  method: "put",
  path: "/v1/settings/auto-replies",
  tags,
  security: TENANT_SECURITY,
  summary: "Opt in or out of publishing auto replies without approval (tenant_admin)",
  operationId: "updateAutoReplySettings",
  description:
    "Opting out makes every later auto reply wait for approval; replies already scheduled keep their schedule (cancel them one by one).",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(UpdateAutoReplySettingsBody) },
  responses: { 200: json(AutoReplySettingsSchema), ...stdErrors },
});

const list = createRoute({
  method: "get",
  path: "/v1/auto-replies",
  tags,
  security: TENANT_SECURITY,
  summary: "Auto replies drafted by the rules, newest last",
  operationId: "listAutoReplies",
  request: { query: AutoReplyListQuery },
  responses: { 200: json(paged(AutoReplySchema).openapi("AutoReplyPage")), ...stdErrors },
});

const get = createRoute({
  method: "get",
  path: "/v1/auto-replies/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get an auto reply",
  operationId: "getAutoReply",
  request: { params: IdParam },
  responses: { 200: json(AutoReplySchema), ...stdErrorsWithNotFound },
});

const cancel = createRoute({
  method: "post",
  path: "/v1/auto-replies/{id}/cancel",
  operationId: "cancelAutoReply",
  tags,
  security: TENANT_SECURITY,
  summary: "Stop a scheduled auto reply from publishing (tenant_user); the response stays in the approval queue",
  middleware: [canWrite] as const,
  request: { params: IdParam },
  responses: { 200: json(AutoReplySchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const autoReplyRoutes: Router = createRouter()
  .openapi(listRules, async (c) => c.json(await listAutoReplyRules(svc(c), c.req.valid("query")), 200))
  .openapi(createRule, async (c) => c.json(await createAutoReplyRule(svc(c), c.req.valid("json")), 201))
  .openapi(getRule, async (c) => c.json(await getAutoReplyRule(svc(c), c.req.valid("param").id), 200))
  .openapi(updateRule, async (c) =>
    c.json(await updateAutoReplyRule(svc(c), c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(deleteRule, async (c) => {
    await deleteAutoReplyRule(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(getSettings, async (c) => c.json(await getAutoReplySettings(svc(c)), 200))
  .openapi(putSettings, async (c) => c.json(await updateAutoReplySettings(svc(c), c.req.valid("json")), 200))
  .openapi(list, async (c) => c.json(await listAutoReplies(svc(c), c.req.valid("query")), 200))
  .openapi(get, async (c) => c.json(await getAutoReply(svc(c), c.req.valid("param").id), 200))
  .openapi(cancel, async (c) => c.json(await cancelAutoReply(svc(c), c.req.valid("param").id), 200));

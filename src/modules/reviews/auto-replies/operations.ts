import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../../lib/operation";
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

// Auto replies in the catalogue (src/lib/operation.ts): the rules (manager), the tenant's auto-publish
// opt-in (tenant_admin) and the replies they drafted. REST keeps them to signed-in users
// (identity/scopes.ts); the MCP tool review.auto-replies is a variant of listAutoReplies (../operations.ts).

const tags = ["Reviews"];

export const listAutoReplyRulesOperation = defineOperation({
  name: "auto-reply-rule.list",
  operationId: "listAutoReplyRules",
  method: "get",
  path: "/v1/auto-reply-rules",
  tags,
  summary: "List auto-reply rules",
  request: { query: AutoReplyRuleListQuery },
  output: paged(AutoReplyRuleSchema).openapi("AutoReplyRulePage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => listAutoReplyRules(ctx, input),
});

export const createAutoReplyRuleOperation = defineOperation({
  name: "auto-reply-rule.create",
  operationId: "createAutoReplyRule",
  method: "post",
  path: "/v1/auto-reply-rules",
  tags,
  summary: "Create an auto-reply rule (manager)",
  description:
    "Ratings of 3 or less need allowLowRatings: true; mode auto_publish needs the tenant's opt-in (PUT /v1/settings/auto-replies) and delayMinutes (5 to 1440).",
  request: { body: CreateAutoReplyRuleBody },
  status: 201,
  output: AutoReplyRuleSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => createAutoReplyRule(ctx, input),
});

export const getAutoReplyRuleOperation = defineOperation({
  name: "auto-reply-rule.get",
  operationId: "getAutoReplyRule",
  method: "get",
  path: "/v1/auto-reply-rules/{id}",
  tags,
  summary: "Get an auto-reply rule",
  request: { params: IdParam },
  output: AutoReplyRuleSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => getAutoReplyRule(ctx, input.id),
});

export const updateAutoReplyRuleOperation = defineOperation({
  name: "auto-reply-rule.update",
  operationId: "updateAutoReplyRule",
  method: "patch",
  path: "/v1/auto-reply-rules/{id}",
  tags,
  summary: "Update an auto-reply rule (manager)",
  request: { params: IdParam, body: UpdateAutoReplyRuleBody },
  output: AutoReplyRuleSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...patch }) => updateAutoReplyRule(ctx, id, patch),
});

export const deleteAutoReplyRuleOperation = defineOperation({
  name: "auto-reply-rule.delete",
  operationId: "deleteAutoReplyRule",
  method: "delete",
  path: "/v1/auto-reply-rules/{id}",
  tags,
  summary: "Delete an auto-reply rule (manager)",
  description:
    "Auto replies already drafted by the rule keep their course (cancel a scheduled one with POST /v1/auto-replies/{id}/cancel).",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  handler: async (ctx, input) => {
    await deleteAutoReplyRule(ctx, input.id);
  },
});

export const getAutoReplySettingsOperation = defineOperation({
  name: "auto-reply-settings.get",
  operationId: "getAutoReplySettings",
  method: "get",
  path: "/v1/settings/auto-replies",
  tags,
  summary: "The tenant's auto-publish opt-in",
  output: AutoReplySettingsSchema,
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async (ctx) => getAutoReplySettings(ctx),
});

export const updateAutoReplySettingsOperation = defineOperation({
  name: "auto-reply-settings.update",
  operationId: "updateAutoReplySettings",
  method: "put",
  path: "/v1/settings/auto-replies",
  tags,
  summary: "Opt in or out of publishing auto replies without approval (tenant_admin)",
  description:
    "Opting out makes every later auto reply wait for approval; replies already scheduled keep their schedule (cancel them one by one).",
  request: { body: UpdateAutoReplySettingsBody },
  output: AutoReplySettingsSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  handler: async (ctx, input) => updateAutoReplySettings(ctx, input),
});

export const listAutoRepliesOperation = defineOperation({
  // review.auto-replies is the MCP tool over the same service (../operations.ts)
  name: "auto-reply.list",
  operationId: "listAutoReplies",
  method: "get",
  path: "/v1/auto-replies",
  tags,
  summary: "Auto replies drafted by the rules, newest last",
  request: { query: AutoReplyListQuery },
  output: paged(AutoReplySchema).openapi("AutoReplyPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => listAutoReplies(ctx, input),
});

export const getAutoReplyOperation = defineOperation({
  name: "auto-reply.get",
  operationId: "getAutoReply",
  method: "get",
  path: "/v1/auto-replies/{id}",
  tags,
  summary: "Get an auto reply",
  request: { params: IdParam },
  output: AutoReplySchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => getAutoReply(ctx, input.id),
});

export const cancelAutoReplyOperation = defineOperation({
  name: "auto-reply.cancel",
  operationId: "cancelAutoReply",
  method: "post",
  path: "/v1/auto-replies/{id}/cancel",
  tags,
  summary: "Stop a scheduled auto reply from publishing (tenant_user); the response stays in the approval queue",
  request: { params: IdParam },
  output: AutoReplySchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  handler: async (ctx, input) => cancelAutoReply(ctx, input.id),
});

/** The auto replies' operations, in the reviews module's list (../operations.ts). */
export const autoReplyOperations: Operation[] = [
  listAutoReplyRulesOperation,
  createAutoReplyRuleOperation,
  getAutoReplyRuleOperation,
  updateAutoReplyRuleOperation,
  deleteAutoReplyRuleOperation,
  getAutoReplySettingsOperation,
  updateAutoReplySettingsOperation,
  listAutoRepliesOperation,
  getAutoReplyOperation,
  cancelAutoReplyOperation,
];

import { IdParam, PageQuerySchema, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import {
  AutomationRuleSchema,
  AutomationRuleWithSecretSchema,
  AutomationRunSchema,
  CreateRuleBody,
  RuleListQuery,
  UpdateRuleBody,
} from "./schemas";
import { createRule, deleteRule, getRule, listRules, listRuns, updateRule } from "./service";

// The automation rules in the catalogue (src/lib/operation.ts): REST only; closed to API keys (no scope
// admits them: src/modules/identity/scopes.ts), reads for every role, changes for managers and up.

const tags = ["Automation rules"];

export const listAutomationRulesOperation = defineOperation({
  name: "automation-rule.list",
  operationId: "listAutomationRules",
  method: "get",
  path: "/v1/automation-rules",
  tags,
  summary: "List automation rules",
  request: { query: RuleListQuery },
  output: paged(AutomationRuleSchema).openapi("AutomationRulePage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => listRules(ctx, input),
});

export const createAutomationRuleOperation = defineOperation({
  name: "automation-rule.create",
  operationId: "createAutomationRule",
  method: "post",
  path: "/v1/automation-rules",
  tags,
  summary: "Create a rule: trigger event type, conditions over its payload, actions (manager)",
  request: { body: CreateRuleBody },
  status: 201,
  output: AutomationRuleWithSecretSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: (ctx, input) => createRule(ctx, input),
});

export const getAutomationRuleOperation = defineOperation({
  name: "automation-rule.get",
  operationId: "getAutomationRule",
  method: "get",
  path: "/v1/automation-rules/{id}",
  tags,
  summary: "Get an automation rule",
  request: { params: IdParam },
  output: AutomationRuleSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, input) => getRule(ctx, input.id),
});

export const updateAutomationRuleOperation = defineOperation({
  name: "automation-rule.update",
  operationId: "updateAutomationRule",
  method: "patch",
  path: "/v1/automation-rules/{id}",
  tags,
  summary: "Update a rule; conditions and actions are replaced whole (manager)",
  request: { params: IdParam, body: UpdateRuleBody },
  output: AutomationRuleWithSecretSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: (ctx, { id, ...patch }) => updateRule(ctx, id, patch),
});

export const deleteAutomationRuleOperation = defineOperation({
  name: "automation-rule.delete",
  operationId: "deleteAutomationRule",
  method: "delete",
  path: "/v1/automation-rules/{id}",
  tags,
  summary: "Delete a rule and its run log (manager)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteRule(ctx, input.id);
  },
});

export const listAutomationRuleRunsOperation = defineOperation({
  name: "automation-rule.runs",
  operationId: "listAutomationRuleRuns",
  method: "get",
  path: "/v1/automation-rules/{id}/runs",
  tags,
  summary: "Run log: one entry per matching event, newest first, with each action's outcome",
  request: { params: IdParam, query: PageQuerySchema },
  output: paged(AutomationRunSchema).openapi("AutomationRunPage"),
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  console: {},
  handler: (ctx, { id, ...query }) => listRuns(ctx, id, query),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listAutomationRulesOperation,
  createAutomationRuleOperation,
  getAutomationRuleOperation,
  updateAutomationRuleOperation,
  deleteAutomationRuleOperation,
  listAutomationRuleRunsOperation,
];

import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { CreateSlaRuleBody, SlaRuleListQuery, SlaRuleSchema, UpdateSlaRuleBody } from "./sla.schemas";
import { createSlaRule, deleteSlaRule, getSlaRule, listSlaRules, updateSlaRule } from "./sla.service";

// The SLA rules (a review's reply window) in the catalogue (src/lib/operation.ts): settings, closed to
// API keys (identity/scopes.ts); changed by a tenant_admin. The reviews past them: sla.overdue (operations.ts).

const tags = ["Reviews"];

export const listSlaRulesOperation = defineOperation({
  name: "sla-rule.list",
  operationId: "listSlaRules",
  method: "get",
  path: "/v1/settings/sla-rules",
  tags,
  summary: "List SLA rules",
  request: { query: SlaRuleListQuery },
  output: paged(SlaRuleSchema).openapi("SlaRulePage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => listSlaRules(ctx, input),
});

export const createSlaRuleOperation = defineOperation({
  name: "sla-rule.create",
  operationId: "createSlaRule",
  method: "post",
  path: "/v1/settings/sla-rules",
  tags,
  summary: "Create an SLA rule (tenant_admin)",
  request: { body: CreateSlaRuleBody },
  status: 201,
  output: SlaRuleSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  handler: async (ctx, input) => createSlaRule(ctx, input),
});

export const getSlaRuleOperation = defineOperation({
  name: "sla-rule.get",
  operationId: "getSlaRule",
  method: "get",
  path: "/v1/settings/sla-rules/{id}",
  tags,
  summary: "Get an SLA rule",
  request: { params: IdParam },
  output: SlaRuleSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  access: "read",
  handler: async (ctx, input) => getSlaRule(ctx, input.id),
});

export const updateSlaRuleOperation = defineOperation({
  name: "sla-rule.update",
  operationId: "updateSlaRule",
  method: "patch",
  path: "/v1/settings/sla-rules/{id}",
  tags,
  summary: "Update an SLA rule (tenant_admin)",
  request: { params: IdParam, body: UpdateSlaRuleBody },
  output: SlaRuleSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...patch }) => updateSlaRule(ctx, id, patch),
});

export const deleteSlaRuleOperation = defineOperation({
  name: "sla-rule.delete",
  operationId: "deleteSlaRule",
  method: "delete",
  path: "/v1/settings/sla-rules/{id}",
  tags,
  summary: "Delete an SLA rule (tenant_admin)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  handler: async (ctx, input) => {
    await deleteSlaRule(ctx, input.id);
  },
});

/** The SLA rules' operations, in the reviews module's list (operations.ts). */
export const slaOperations: Operation[] = [
  listSlaRulesOperation,
  createSlaRuleOperation,
  getSlaRuleOperation,
  updateSlaRuleOperation,
  deleteSlaRuleOperation,
];

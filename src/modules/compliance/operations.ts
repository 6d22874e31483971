import { stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { ComplianceConfigSchema, UpdateComplianceBody } from "./schemas";
import { getComplianceConfig, updateComplianceConfig } from "./service";

// The compliance operations served by REST and agents alike (src/lib/operation.ts).

export const getComplianceSettingsOperation = defineOperation({
  name: "compliance.config",
  operationId: "getComplianceSettings",
  method: "get",
  path: "/v1/compliance",
  tags: ["Compliance"],
  summary: "Compliance settings (defaults until saved)",
  description: "The tenant's compliance settings: quiet hours, frequency caps, consent requirements.",
  output: ComplianceConfigSchema,
  errors: stdErrors,
  // REST keeps the settings to signed-in users (no key scope, src/modules/identity/scopes.ts); agents read them with read:campaigns
  scopes: [],
  access: "read",
  agent: { scopes: ["read:campaigns"] },
  console: {},
  handler: (ctx) => getComplianceConfig(ctx),
});

export const updateComplianceSettingsOperation = defineOperation({
  name: "compliance.config.update",
  operationId: "updateComplianceSettings",
  method: "put",
  path: "/v1/compliance",
  tags: ["Compliance"],
  summary: "Update compliance settings (tenant_admin); omitted fields keep their value",
  request: { body: UpdateComplianceBody },
  output: ComplianceConfigSchema,
  errors: stdErrors,
  // closed to API keys like the read (src/modules/identity/scopes.ts)
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  console: {},
  handler: (ctx, input) => updateComplianceConfig(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [getComplianceSettingsOperation, updateComplianceSettingsOperation];

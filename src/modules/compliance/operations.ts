import { stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { ComplianceConfigSchema } from "./schemas";
import { getComplianceConfig } from "./service";

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
  handler: (ctx) => getComplianceConfig(ctx),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [getComplianceSettingsOperation];

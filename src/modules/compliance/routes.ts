import { createRoute } from "@hono/zod-openapi";
import { createRouter, json, jsonBody, stdErrors, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { ComplianceConfigSchema, UpdateComplianceBody } from "./schemas";
import { getComplianceConfig, updateComplianceConfig } from "./service";

const tags = ["Compliance"];

const get = createRoute({
  method: "get",
  path: "/v1/compliance",
  operationId: "getComplianceSettings",
  tags,
  security: TENANT_SECURITY,
  summary: "Compliance settings (defaults until saved)",
  responses: { 200: json(ComplianceConfigSchema), ...stdErrors },
});

const put = createRoute({
  method: "put",
  path: "/v1/compliance",
  operationId: "updateComplianceSettings",
  tags,
  security: TENANT_SECURITY,
  summary: "Update compliance settings (tenant_admin); omitted fields keep their value",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(UpdateComplianceBody) },
  responses: { 200: json(ComplianceConfigSchema), ...stdErrors },
});

export const complianceRoutes = createRouter()
  .openapi(get, async (c) => c.json(await getComplianceConfig(svc(c)), 200))
  .openapi(put, async (c) => c.json(await updateComplianceConfig(svc(c), c.req.valid("json")), 200));

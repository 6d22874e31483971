import { createRoute } from "@hono/zod-openapi";
import { createRouter, json, jsonBody, type Router, stdErrors, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { ComplianceConfigSchema, UpdateComplianceBody } from "./schemas";
import { updateComplianceConfig } from "./service";

const tags = ["Compliance"];

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

export const complianceRoutes: Router = createRouter().openapi(put, async (c) =>
  c.json(await updateComplianceConfig(svc(c), c.req.valid("json")), 200),
);

import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, IdParam, json, jsonBody, stdErrorsWithNotFound, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { CreateTenantExportBody, TenantExportSchema, toTenantExport } from "./schemas";
import { downloadTenantExport, getTenantExport, startTenantExport } from "./service";

const tags = ["Exports"];

const create = createRoute({
  method: "post",
  path: "/v1/exports",
  operationId: "createExport",
  tags,
  security: TENANT_SECURITY,
  middleware: [canAdminister] as const,
  summary: "Export all of this tenant's data as JSON Lines, in the background (tenant_admin; allowDataExport)",
  description:
    "Starts a job that writes every row the tenant owns (locations, contacts with consent and suppression, campaigns, " +
    "templates, solicitations, reviews, responses, surveys and feedback, inbox, integrations and webhooks without their " +
    'secrets, the audit trail) as one JSON object per line: {"table": ..., "row": {...}}. Poll GET /v1/exports/{id}; ' +
    "the file stays downloadable for 7 days.",
  request: { body: jsonBody(CreateTenantExportBody) },
  responses: { 202: json(TenantExportSchema, "Accepted: the export job, queued"), ...stdErrorsWithNotFound },
});

const get = createRoute({
  method: "get",
  path: "/v1/exports/{id}",
  operationId: "getExport",
  tags,
  security: TENANT_SECURITY,
  middleware: [canAdminister] as const,
  summary: "An export's status and progress; its download URL once it succeeded (tenant_admin)",
  request: { params: IdParam },
  responses: { 200: json(TenantExportSchema), ...stdErrorsWithNotFound },
});

const download = createRoute({
  method: "get",
  path: "/v1/exports/{id}/download",
  operationId: "getExportDownload",
  tags,
  security: TENANT_SECURITY,
  middleware: [canAdminister] as const,
  summary:
    "The export's JSON Lines file, streamed as an attachment (tenant_admin); 404 before it is done and after 7 days",
  request: { params: IdParam },
  responses: {
    200: { description: "JSON Lines", content: { "application/x-ndjson": { schema: z.string() } } },
    ...stdErrorsWithNotFound,
  },
});

export const exportRoutes = createRouter()
  .openapi(create, async (c) => c.json(toTenantExport(await startTenantExport(svc(c))), 202))
  .openapi(get, async (c) => c.json(await getTenantExport(svc(c), c.req.valid("param").id), 200))
  .openapi(download, async (c) => {
    const file = await downloadTenantExport(svc(c), c.req.valid("param").id);
    // a stream, not JSON: the typed c.json/c.body of a "...json" media type do not fit it
    return new Response(file.body, {
      status: 200,
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${file.fileName}"`,
      },
    }) as never;
  });

import { z } from "@hono/zod-openapi";
import { IdParam, PageQuerySchema, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, fileOutput, type Operation, reply } from "../../lib/operation";
import { CreateTenantExportBody, TenantExportSchema, TenantExportToolResultSchema, toTenantExport } from "./schemas";
import { downloadTenantExport, getTenantExport, listTenantExports, startTenantExport } from "./service";

// The tenant data export in the catalogue (src/lib/operation.ts): a 202 with Location, a poll, a
// JSON Lines download, and the MCP long job.

const tags = ["Exports"];

export const createExportOperation = defineOperation({
  name: "tenant.export-start",
  operationId: "createExport",
  method: "post",
  path: "/v1/exports",
  tags,
  summary: "Export all of this tenant's data as JSON Lines, in the background (tenant_admin; allowDataExport)",
  description:
    "Starts a job that writes every row the tenant owns (locations, contacts with consent and suppression, campaigns, " +
    "templates, solicitations, reviews, responses, surveys and feedback, inbox, integrations and webhooks without their " +
    'secrets, the audit trail) as one JSON object per line: {"table": ..., "row": {...}}. Poll GET /v1/exports/{id} ' +
    "(the Location header); the file stays downloadable for 7 days.",
  request: { body: CreateTenantExportBody },
  status: 202,
  statusText: "Accepted: the export job, queued",
  responseHeaders: z.object({
    Location: z.string().openapi({ description: "the export to poll: /v1/exports/{id}", example: "/v1/exports/job_x" }),
  }),
  output: TenantExportSchema,
  errors: stdErrorsWithNotFound,
  // REST: signed-in tenant admins only (identity/scopes.ts has no scope for /v1/exports)
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: async (ctx) => {
    const job = toTenantExport(await startTenantExport(ctx));
    return reply(job, { headers: { location: `/v1/exports/${job.id}` } });
  },
});

export const listExportsOperation = defineOperation({
  name: "tenant.export-list",
  operationId: "listExports",
  method: "get",
  path: "/v1/exports",
  tags,
  summary: "This tenant's data exports, newest first, each with its status and download URL (tenant_admin)",
  description:
    "The exports started with POST /v1/exports (over REST, MCP or the console), as GET /v1/exports/{id} shows each. " +
    "A finished export keeps its row after its file expires (downloadUrl null).",
  request: { query: PageQuerySchema },
  output: paged(TenantExportSchema).openapi("TenantExportPage"),
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "read",
  console: {},
  handler: async (ctx, input) => listTenantExports(ctx, input),
});

export const getExportOperation = defineOperation({
  name: "tenant.export-get",
  operationId: "getExport",
  method: "get",
  path: "/v1/exports/{id}",
  tags,
  summary: "An export's status and progress; its download URL once it succeeded (tenant_admin)",
  request: { params: IdParam },
  output: TenantExportSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "read",
  console: {},
  handler: async (ctx, input) => getTenantExport(ctx, input.id),
});

export const downloadExportOperation = defineOperation({
  name: "tenant.export-download",
  operationId: "getExportDownload",
  method: "get",
  path: "/v1/exports/{id}/download",
  tags,
  summary:
    "The export's JSON Lines file, streamed as an attachment (tenant_admin); 404 before it is done and after 7 days",
  request: { params: IdParam },
  output: fileOutput({
    mediaType: "application/x-ndjson",
    description: "JSON Lines",
    contentType: "application/x-ndjson; charset=utf-8",
  }),
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "read",
  console: {},
  handler: async (ctx, input) => {
    const file = await downloadTenantExport(ctx, input.id);
    return { body: file.body, fileName: file.fileName };
  },
});

/*
 * The tenant data export holds every kind of tenant data, so it asks for more than any one read scope:
 * skill scopes unlock on any one of them (mcp/skills/registry.ts), so the tool lists read:contacts
 * (personal data, the most sensitive part) and `callers` offers it only to a caller holding EVERY read
 * scope of the data it writes. It is for signed-in tenant admins only, like POST /v1/exports: an API key
 * has no role, and keys cannot reach /v1/exports either (identity/scopes.ts lists no scope for it).
 */
const EXPORT_READ_SCOPES = [
  "read:contacts",
  "read:reviews",
  "read:feedback",
  "read:surveys",
  "read:campaigns",
  "read:locations",
] as const;

export const tenantExportOperation = defineOperation({
  name: "tenant.export",
  summary: "Export all of the tenant's data",
  description:
    "Writes every row the tenant owns (locations, contacts with consent and suppression, campaigns, templates, " +
    "solicitations, reviews and responses, surveys and feedback, inbox, integrations and webhooks without secrets, the " +
    "audit trail) into a JSON Lines file, one {table, row} per line, downloadable for 7 days at downloadPath (REST, " +
    "tenant admin). Tenant admins only, and only when the tenant's compliance settings allow data export. Clients with " +
    "the MCP tasks extension get a task whose result has the downloadPath; others get the queued export at once " +
    "(follow it with GET /v1/exports/{id}).",
  input: z.object({}),
  output: TenantExportToolResultSchema,
  scopes: ["read:contacts"],
  minRole: "tenant_admin",
  access: "write",
  variantOf: { operationId: "createExport", why: "a long job for MCP clients with the tasks extension" },
  confirm: () => "Export all of this tenant's data (customers' personal data included) into a downloadable file?",
  mcp: {
    title: "Export all of the tenant's data",
    // signed-in users holding every read scope of the exported data; others are not offered the tool
    callers: (caller) => caller.credential !== "api_key" && EXPORT_READ_SCOPES.every((s) => caller.scopes.includes(s)),
    longJob: {
      kind: "tenant_export",
      unit: "rows",
      start: (ctx, _input, owner) => startTenantExport(ctx, owner),
    },
  },
  handler: async (ctx) => toTenantExport(await startTenantExport(ctx)),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  createExportOperation,
  listExportsOperation,
  getExportOperation,
  downloadExportOperation,
  tenantExportOperation,
];

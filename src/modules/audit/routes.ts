import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, json, paged, type Router, stdErrors, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { auditCsvDownload } from "./download";
import { AuditEventSchema, AuditFilterSchema, AuditListQuery } from "./schemas";
import { listAuditEvents } from "./service";

const tags = ["Audit"];
const admin = [canAdminister];

const list = createRoute({
  method: "get",
  path: "/v1/audit-events",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "listAuditEvents",
  summary: "This tenant's audit events, newest first (tenant_admin)",
  request: { query: AuditListQuery },
  responses: { 200: json(paged(AuditEventSchema).openapi("AuditEventPage")), ...stdErrors },
});

const exportCsv = createRoute({
  method: "get",
  path: "/v1/audit-events/export",
  tags,
  security: TENANT_SECURITY,
  middleware: admin,
  operationId: "exportAuditEvents",
  summary: "Export this tenant's audit events as CSV (tenant_admin)",
  description:
    "Same filters as the list, newest first, streamed. A header row, RFC 4180 quoting, CRLF line ends; JSON states are serialised as JSON; cells starting with = + - @ tab or CR are prefixed with a single quote so spreadsheets do not run them as formulas.",
  request: { query: AuditFilterSchema },
  responses: {
    200: { description: "CSV", content: { "text/csv": { schema: z.string() } } },
    ...stdErrors,
  },
});

export const auditRoutes: Router = createRouter()
  .openapi(list, async (c) => {
    const ctx = svc(c);
    return c.json(await listAuditEvents(ctx.db, { ...c.req.valid("query"), tenantId: ctx.tenantId }), 200);
  })
  .openapi(exportCsv, (c) => {
    const ctx = svc(c);
    return auditCsvDownload(ctx.db, { ...c.req.valid("query"), tenantId: ctx.tenantId });
  });

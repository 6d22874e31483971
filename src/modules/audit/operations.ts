import { paged, stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { AuditCsv, auditCsvFile } from "./download";
import { AuditEventSchema, AuditFilterSchema, AuditListQuery } from "./schemas";
import { listAuditEvents } from "./service";

// The tenant's audit log in the catalogue (src/lib/operation.ts): tenant_admin only, closed to API keys
// (no scope admits them: identity/scopes.ts). The platform's view is /admin/audit-events (admin module).

const tags = ["Audit"];

export const listAuditEventsOperation = defineOperation({
  name: "audit.list",
  operationId: "listAuditEvents",
  method: "get",
  path: "/v1/audit-events",
  tags,
  summary: "This tenant's audit events, newest first (tenant_admin)",
  request: { query: AuditListQuery },
  output: paged(AuditEventSchema).openapi("AuditEventPage"),
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "read",
  console: {},
  handler: async (ctx, input) => listAuditEvents(ctx.db, { ...input, tenantId: ctx.tenantId }),
});

export const exportAuditEventsOperation = defineOperation({
  name: "audit.export",
  operationId: "exportAuditEvents",
  method: "get",
  path: "/v1/audit-events/export",
  tags,
  summary: "Export this tenant's audit events as CSV (tenant_admin)",
  description:
    "Same filters as the list, newest first, streamed. A header row, RFC 4180 quoting, CRLF line ends; JSON states are serialised as JSON; cells starting with = + - @ tab or CR are prefixed with a single quote so spreadsheets do not run them as formulas.",
  request: { query: AuditFilterSchema },
  output: AuditCsv,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "read",
  console: {},
  handler: async (ctx, input) => auditCsvFile(ctx.db, { ...input, tenantId: ctx.tenantId }),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [listAuditEventsOperation, exportAuditEventsOperation];

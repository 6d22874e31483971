import type { Db } from "../../db/client";
import type { AuditFilter } from "./schemas";
import { exportAuditEventsCsv } from "./service";

/**
 * The audit CSV as a download (docs/agency.md "Audit export"): GET /v1/audit-events/export and the console's
 * audit page answer with this one response, the same filters giving the same rows.
 */
export function auditCsvDownload(db: Db, filter: AuditFilter, now = new Date()): Response {
  const stamp = now.toISOString().slice(0, 10);
  return new Response(exportAuditEventsCsv(db, filter), {
    status: 200,
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="audit-events-${stamp}.csv"`,
    },
  });
}

import type { Db } from "../../db/client";
import { type FileAnswer, fileOutput } from "../../lib/operation";
import type { AuditFilter } from "./schemas";
import { exportAuditEventsCsv } from "./service";

/** The audit CSV's media type, as GET /v1/audit-events/export declares it. */
export const AuditCsv = fileOutput({
  mediaType: "text/csv",
  contentType: "text/csv; charset=utf-8",
  description: "CSV",
});

/**
 * The audit CSV as a download (docs/agency.md "Audit export"): GET /v1/audit-events/export's answer, which the
 * console's audit page serves through the same operation: the same filters give the same rows.
 */
export function auditCsvFile(db: Db, filter: AuditFilter, now = new Date()): FileAnswer {
  return { body: exportAuditEventsCsv(db, filter), fileName: `audit-events-${now.toISOString().slice(0, 10)}.csv` };
}

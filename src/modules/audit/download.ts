import type { Db } from "../../db/client";
import { type FileAnswer, fileOutput, fileResponse } from "../../lib/operation";
import type { AuditFilter } from "./schemas";
import { exportAuditEventsCsv } from "./service";

/** The audit CSV's media type, as GET /v1/audit-events/export declares it. */
export const AuditCsv = fileOutput({
  mediaType: "text/csv",
  contentType: "text/csv; charset=utf-8",
  description: "CSV",
});

/**
 * The audit CSV as a download (docs/agency.md "Audit export"): GET /v1/audit-events/export and the console's
 * audit page answer with this one file, the same filters giving the same rows.
 */
export function auditCsvFile(db: Db, filter: AuditFilter, now = new Date()): FileAnswer {
  return { body: exportAuditEventsCsv(db, filter), fileName: `audit-events-${now.toISOString().slice(0, 10)}.csv` };
}

/** The console page's answer: the same file as REST's, as its response. */
export const auditCsvDownload = (db: Db, filter: AuditFilter, now = new Date()): Response =>
  fileResponse(AuditCsv, auditCsvFile(db, filter, now));

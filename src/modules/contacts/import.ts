import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { MAX_CSV_BYTES, MAX_CSV_ROWS, parseCsvTable, readCsvFile } from "../../lib/csv";
import { isUniqueViolation } from "../../lib/db-errors";
import { ApiError, conflict, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { UpsertContactBody } from "./schemas";
import { type PreparedContact, planUpserts, preparePhone, upsertStatements } from "./upsert";

/** Header spellings accepted per field, compared lower-cased without spaces, "_" or "-". */
const COLUMNS: Record<string, keyof PreparedContact> = {
  email: "email",
  phone: "phone",
  firstname: "firstName",
  lastname: "lastName",
  locale: "locale",
  timezone: "timezone",
};

const headerKey = (h: string) => h.toLowerCase().replace(/[\s_-]/g, "");

const tooLarge = (what: string) =>
  new ApiError("PAYLOAD_TOO_LARGE", `CSV import is limited to ${what}; nothing was imported`);

export interface RowError {
  row: number;
  reason: string;
}

export function parseCsv(text: string) {
  const { rows, fields, broken, overLimit } = parseCsvTable(text, {
    transformHeader: (h) => COLUMNS[headerKey(h)] ?? `ignored:${h}`,
  });
  if (overLimit) throw tooLarge(`${MAX_CSV_ROWS.toLocaleString("en-US")} rows`);
  if (!fields.includes("email") && !fields.includes("phone")) {
    throw validationError([{ path: "file", message: "The CSV header needs an email or a phone column" }]);
  }
  return { rows, broken };
}

/** One CSV row -> a prepared upsert, or the reason it is skipped. Empty cells leave fields unchanged. */
export function prepareRow(cells: Record<string, string>): PreparedContact | string {
  const candidate = Object.fromEntries(
    Object.values(COLUMNS).flatMap((field) => {
      const value = cells[field]?.trim();
      return value ? [[field, value]] : [];
    }),
  );
  const parsed = UpsertContactBody.safeParse(candidate);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  const prepared = preparePhone(parsed.data);
  return "message" in prepared ? `${prepared.path}: ${prepared.message}` : prepared;
}

/**
 * POST /v1/contacts/import/csv. Every valid row is upserted in ONE D1 batch (atomic): either all
 * of them are written with the import's audit row, or none is.
 */
export async function importContactsCsv(
  ctx: ServiceContext,
  file: File,
  retried = false,
): Promise<{ imported: number; skipped: number; errors: RowError[] }> {
  if (file.size > MAX_CSV_BYTES) throw tooLarge("10 MB");
  const { rows, broken } = parseCsv(await readCsvFile(file));

  const errors: RowError[] = [];
  const accepted: { row: number; input: PreparedContact }[] = [];
  rows.forEach((cells, i) => {
    const prepared = broken.has(i) ? `Malformed CSV: ${broken.get(i)}` : prepareRow(cells);
    if (typeof prepared === "string") errors.push({ row: i + 1, reason: prepared });
    else accepted.push({ row: i + 1, input: prepared });
  });

  const now = nowIso();
  const plan = await planUpserts(
    ctx,
    accepted.map((a) => a.input),
    now,
  );
  let imported = 0;
  plan.outcomes.forEach((o, i) => {
    if ("error" in o) errors.push({ row: accepted[i]!.row, reason: o.error });
    else imported++;
  });
  errors.sort((a, b) => a.row - b.row);

  if (plan.rows.length) {
    const created = plan.rows.filter((r) => !plan.before.has(r.id)).map((r) => r.id);
    const updated = plan.rows.filter((r) => plan.before.has(r.id)).map((r) => r.id);
    try {
      await commit(ctx, [
        ...upsertStatements(ctx, plan.rows),
        auditStatement(ctx, {
          tenantId: ctx.tenantId,
          action: "contact.imported",
          resourceType: "contact_import",
          resourceId: newId(),
          nextState: { fileName: file.name, rows: rows.length, imported, skipped: errors.length, created, updated },
        }),
      ]);
    } catch (e) {
      // a concurrent write took an email or phone after the lookup; nothing was written: match again, once
      if (isUniqueViolation(e) && !retried) return importContactsCsv(ctx, file, true);
      if (isUniqueViolation(e))
        throw conflict("Concurrent writes changed the same contacts; nothing was imported, retry");
      throw e;
    }
  }
  return { imported, skipped: errors.length, errors };
}

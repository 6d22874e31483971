/** Cells a spreadsheet would run as a formula (or that hide one) get a leading single quote. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One RFC 4180 field, safe to open in a spreadsheet. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let s = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One record, CRLF-terminated as RFC 4180 asks. */
export const csvRow = (values: unknown[]) => `${values.map(csvCell).join(",")}\r\n`;

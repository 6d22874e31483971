import Papa from "papaparse";

/**
 * CSV as spreadsheets and other systems write it, read one way by every import (contacts, the bulk
 * send, locations, the MCP import task). What people upload:
 * - Excel "CSV UTF-8": UTF-8 with a byte-order mark, CRLF; Google Sheets and Numbers: UTF-8, no mark;
 * - Excel "CSV (Comma delimited)" on Windows: Windows-1252 ("José" is one byte 0xE9, not UTF-8);
 * - Excel "Unicode Text": UTF-16LE with a mark, tab-separated;
 * - a semicolon as separator where the decimal separator is a comma (most of Europe);
 * - old Mac exports: CR alone ends a line.
 * papaparse detects the separator and the line ending; the encoding is decided here.
 */

/** The spec's limits (interface spec, Errors: 413 for a CSV over 10 MB or 5,000 rows). */
export const MAX_CSV_BYTES = 10 * 1024 * 1024;
export const MAX_CSV_ROWS = 5_000;

/** The text of uploaded CSV bytes: by byte-order mark, else UTF-8 if it is valid UTF-8, else Windows-1252. */
export function decodeCsvBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(start));
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** An uploaded file's CSV text (`decodeCsvBytes`). */
export const readCsvFile = async (file: Blob): Promise<string> =>
  decodeCsvBytes(new Uint8Array(await file.arrayBuffer()));

export interface CsvTable {
  /** data rows, header names as `transformHeader` made them */
  rows: Record<string, string>[];
  /** the header row after `transformHeader` */
  fields: string[];
  /** data row index -> why papaparse could not read it (an unclosed quote) */
  broken: Map<number, string>;
  /** more than `maxRows` data rows: the caller refuses the file (only `maxRows + 1` are read) */
  overLimit: boolean;
}

/** A CSV with a header row, parsed the one way every import parses it. */
export function parseCsvTable(
  text: string,
  o: { transformHeader: (header: string) => string; maxRows?: number },
): CsvTable {
  const maxRows = o.maxRows ?? MAX_CSV_ROWS;
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ""), {
    header: true,
    skipEmptyLines: "greedy",
    transformHeader: o.transformHeader,
    // one row past the limit is enough to know the file is too long
    preview: maxRows + 1,
  });
  return {
    rows: parsed.data.slice(0, maxRows),
    fields: parsed.meta.fields ?? [],
    // papaparse numbers a quote error's row counting the header row (5.x): data row = row - 1. An
    // unclosed quote runs to the end of the file, so it is always the last data row.
    broken: new Map(
      parsed.errors.filter((e) => e.type === "Quotes" && e.row !== undefined).map((e) => [e.row! - 1, e.message]),
    ),
    overLimit: parsed.data.length > maxRows,
  };
}

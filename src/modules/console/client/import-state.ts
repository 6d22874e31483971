/*
 * A contact import's state as the console's status address answers it, and its wording: shared by the job's
 * page (server-rendered, pages/contacts-import.tsx) and its client part (import-progress.tsx), so both say the
 * same. Plain TypeScript, no DOM.
 */

export interface RowError {
  row: number;
  reason: string;
}

/** What the status address answers: the job as GET /v1/contacts/import-jobs/{jobId} shows it, in short. */
export interface ImportState {
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  total: number;
  done: number;
  imported: number;
  skipped: number;
  error: string | null;
  /** the first SHOWN_ERRORS refused rows, in row order (all of them: the CSV at `errorsCsv`) */
  errors: RowError[];
  errorsCsv: string;
}

/** Refused rows listed on the page; the rest are in the CSV of refused rows. */
export const SHOWN_ERRORS = 100;

export const importFinished = (s: ImportState["status"]) => s !== "queued" && s !== "running";

const n = (x: number) => x.toLocaleString("en-US");
const rows = (x: number) => `${n(x)} row${x === 1 ? "" : "s"}`;

export function importText(s: ImportState): string {
  switch (s.status) {
    case "queued":
      return `Waiting to start: ${rows(s.total)} to import.`;
    case "running":
      return `Importing: ${n(s.done)} of ${rows(s.total)} done.`;
    case "succeeded":
      return `Done: ${n(s.imported)} imported, ${rows(s.skipped)} refused.`;
    case "failed":
      return `The import stopped after ${rows(s.done)}: ${s.error ?? "no reason was recorded"}. The rows before it are imported.`;
    default:
      return `The import was cancelled after ${rows(s.done)}.`;
  }
}

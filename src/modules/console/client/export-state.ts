/*
 * A data export's state as the console's status address answers it, and its wording: shared by the page
 * (server-rendered, pages/data-export.tsx) and its client part (export-progress.tsx), so both say the same.
 * Plain TypeScript, no DOM.
 */

/** What the console's status address answers (the export as GET /v1/exports/{id} shows it, in short). */
export interface ExportState {
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  done: number;
  total: number;
  error: string | null;
  download: string | null;
}

export const finished = (s: ExportState["status"]) => s === "succeeded" || s === "failed" || s === "cancelled";

export function stateText(s: ExportState): string {
  switch (s.status) {
    case "queued":
      return "Waiting to start…";
    case "running":
      return `Writing the file: ${s.done.toLocaleString("en-US")} of ${s.total.toLocaleString("en-US")} rows.`;
    case "succeeded":
      return `The file is ready: ${s.done.toLocaleString("en-US")} rows.`;
    case "failed":
      return `The export failed: ${s.error ?? "no reason was recorded"}. Start a new one.`;
    default:
      return "The export was cancelled.";
  }
}

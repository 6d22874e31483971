import { type ImportState, importText } from "./import-state";

/*
 * The live part of a contact import's page, one markup for both of its renderers: the page renders it with
 * hono/jsx's createElement (pages/contacts-import.tsx), the client part with hono/jsx/dom's
 * (import-progress.tsx), so the server's first answer and every update say and show the same. Plain
 * TypeScript (each side's JSX runtime is chosen by its tsconfig, so a shared .tsx would get only one of them).
 */

/** createElement of hono/jsx or of hono/jsx/dom. */
export type Create<N> = (tag: string, props: Record<string, unknown> | null, ...children: unknown[]) => N;

const n = (x: number) => x.toLocaleString("en-US");

/** The state sentence, the progress bar, the counts, and the refused rows by row number and reason. */
export function importView<N>(h: Create<N>, s: ImportState): N {
  const refused = s.errors.map((e) =>
    h(
      "tr",
      null,
      h("th", { scope: "row", "data-label": "Row" }, String(e.row)),
      h("td", { "data-label": "Why" }, e.reason),
    ),
  );
  return h(
    "div",
    null,
    h("p", { role: "status" }, importText(s)),
    h("progress", { max: Math.max(s.total, 1), value: s.done, "aria-label": "Rows imported" }),
    h("p", { class: "small" }, `Imported: ${n(s.imported)} · Refused: ${n(s.skipped)}`),
    refused.length > 0 &&
      h(
        "table",
        { class: "rows" },
        h("caption", null, "Refused rows (row 1 is the first row under the header)"),
        h("thead", null, h("tr", null, h("th", { scope: "col" }, "Row"), h("th", { scope: "col" }, "Why"))),
        h("tbody", null, ...refused),
      ),
    s.skipped > s.errors.length &&
      h(
        "p",
        null,
        `The first ${s.errors.length} of ${n(s.skipped)} refused rows are listed. `,
        h("a", { href: s.errorsCsv }, "Download every refused row (CSV)"),
      ),
  );
}

import { type ImportState, importFinished, importText } from "./import-state";
import { usePolled } from "./poll";

/** How often a running import is asked for its progress (it imports 100 rows a step, a few steps a second). */
const POLL_MS = 1_000;

/**
 * A contact import's progress and refused rows without reloading: the same markup as the job's page renders
 * (pages/contacts-import.tsx ImportLive), updated from the console's status address until the job is finished.
 */
export function ImportProgress(props: { pollUrl: string; initial: ImportState }) {
  const s = usePolled(props.pollUrl, props.initial, (x) => importFinished(x.status), POLL_MS);
  return (
    <div>
      <p role="status">{importText(s)}</p>
      <progress max={Math.max(s.total, 1)} value={s.done} aria-label="Rows imported" />
      <p class="small">
        Imported: {s.imported.toLocaleString("en-US")} · Refused: {s.skipped.toLocaleString("en-US")}
      </p>
      {s.errors.length > 0 && (
        <table class="rows">
          <caption>Refused rows (row 1 is the first row under the header)</caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {s.errors.map((e) => (
              <tr>
                <th scope="row" data-label="Row">
                  {e.row}
                </th>
                <td data-label="Why">{e.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s.skipped > s.errors.length && (
        <p>
          The first {s.errors.length} of {s.skipped.toLocaleString("en-US")} refused rows are listed.{" "}
          <a href={s.errorsCsv}>Download every refused row (CSV)</a>
        </p>
      )}
    </div>
  );
}

import { type ExportState, finished, stateText } from "./export-state";
import { usePolled } from "./poll";

/** How often a running export is asked for its progress (an export of a large tenant takes a minute or two). */
const POLL_MS = 2_000;

/**
 * A data export's progress without reloading (the page itself, server-rendered, shows the state it was loaded
 * in and a Refresh link): it asks the console's status address every two seconds until the export is finished,
 * then offers the download.
 */
export function ExportProgress(props: { pollUrl: string; initial: ExportState }) {
  const state = usePolled(props.pollUrl, props.initial, (s) => finished(s.status), POLL_MS);
  return (
    <div>
      <p role="status">{stateText(state)}</p>
      {!finished(state.status) && (
        <progress max={Math.max(state.total, 1)} value={state.done} aria-label="Rows written" />
      )}
      {state.download && (
        <p>
          <a class="button" href={state.download}>
            Download the file
          </a>
        </p>
      )}
    </div>
  );
}

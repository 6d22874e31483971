import { useEffect, useState } from "hono/jsx/dom";
import { type ExportState, finished, stateText } from "./export-state";
import { pollJson } from "./poll";

/** How often a running export is asked for its progress (an export of a large tenant takes a minute or two). */
const POLL_MS = 2_000;

/**
 * A data export's progress without reloading (the page itself, server-rendered, shows the state it was loaded
 * in and a Refresh link): it asks the console's status address (same origin, the session's cookie) every two
 * seconds until the export is finished, then offers the download. The state lives on the server, so a reload
 * shows where the export is and this part carries on.
 */
export function ExportProgress(props: { pollUrl: string; initial: ExportState }) {
  const [state, setState] = useState(props.initial);
  useEffect(() => {
    if (finished(props.initial.status)) return;
    return pollJson<ExportState>(props.pollUrl, POLL_MS, (next) => {
      setState(next);
      return finished(next.status);
    });
  }, [props.pollUrl]);
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

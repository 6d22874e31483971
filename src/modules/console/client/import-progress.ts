import { createElement } from "hono/jsx/dom";
import { type ImportState, importFinished } from "./import-state";
import { type Create, importView } from "./import-view";
import { usePolled } from "./poll";

/** How often a running import is asked for its progress (it imports 100 rows a step, a step or so a second). */
const POLL_MS = 1_000;

/**
 * A contact import's progress and refused rows without reloading: the markup the job's page renders
 * (import-view.ts), updated from the console's status address until the job is finished.
 */
export function ImportProgress(props: { pollUrl: string; initial: ImportState }) {
  const s = usePolled(props.pollUrl, props.initial, (x) => importFinished(x.status), POLL_MS);
  return importView(createElement as Create<ReturnType<typeof createElement>>, s);
}

import { useEffect, useState } from "hono/jsx/dom";
import { pollJson } from "./poll";

/** How often a send's figures are asked for while messages wait (a send of thousands takes a minute or two). */
const POLL_MS = 3_000;
/** Polls after the last message left: the analytics the figures come from follow within seconds. */
const SETTLE_POLLS = 4;

/**
 * A campaign's figures while its send runs, without reloading (docs/console.md, "Review requests"): it asks the
 * console's progress address (same origin, the session's cookie) every few seconds while messages still wait,
 * a few times more once none does, and shows the fragment the server rendered (the same markup as the page).
 * The state lives on the server, so a reload shows where the send is and this part carries on.
 */
export function CampaignProgress(props: { pollUrl: string; initial: string; finished: boolean }) {
  const [html, setHtml] = useState(props.initial);
  useEffect(() => {
    if (props.finished) return;
    let settle = SETTLE_POLLS;
    return pollJson<{ finished: boolean; html: string }>(props.pollUrl, POLL_MS, (next) => {
      setHtml(next.html);
      return next.finished && --settle <= 0;
    });
  }, [props.pollUrl]);
  // the server's own rendering of the figures (escaped there), from this origin
  return <div dangerouslySetInnerHTML={{ __html: html }} />;
}

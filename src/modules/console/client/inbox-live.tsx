import { useEffect, useState } from "hono/jsx/dom";
import { pollJson } from "./poll";

/** How often the inbox asks whether anything newer arrived (a person leaves the inbox open all day). */
const POLL_MS = 30_000;

/**
 * "3 new items: show them": the inbox list's one piece of state. It asks the console (same origin, the
 * session's cookie) how many items are newer than the newest one on the page, with the page's filters, and
 * offers to reload; the list itself stays server-rendered. Without script the page has a plain Refresh link.
 */
export function InboxLive(props: { pollUrl: string; newest: string }) {
  const [count, setCount] = useState(0);
  useEffect(
    () =>
      pollJson<{ newer?: number }>(props.pollUrl, POLL_MS, (body) => {
        if (typeof body.newer === "number") setCount(body.newer);
        return false;
      }),
    [props.pollUrl],
  );
  if (count === 0) return <span class="vh">No new items since the page was loaded.</span>;
  return (
    <a class="button secondary" href={location.pathname + location.search}>
      {count === 1 ? "1 new item" : `${count} new items`}: show them
    </a>
  );
}

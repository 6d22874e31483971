import { useEffect, useState } from "hono/jsx/dom";

/**
 * A server-side state a page shows live (a data export's, a contact import's): the page renders the state it
 * was loaded in and hands it here; this asks `url` (same origin, the session's cookie) every `everyMs` until
 * `finished(state)`, so a reload, or coming back later, finds the job where it is and carries on.
 */
export function usePolled<T>(url: string, initial: T, finished: (state: T) => boolean, everyMs: number): T {
  const [state, setState] = useState(initial);
  useEffect(() => {
    if (finished(initial)) return;
    let stopped = false;
    const timer = setInterval(() => {
      fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" })
        .then((res) => (res.ok ? (res.json() as Promise<T>) : null))
        .then((next) => {
          if (stopped || !next) return;
          setState(next);
          if (finished(next)) clearInterval(timer);
        })
        .catch(() => undefined);
    }, everyMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [url]);
  return state;
}

import { useEffect, useState } from "hono/jsx/dom";

/**
 * Asks a console address (same origin, the session's cookie) for JSON every `everyMs`, hands each answer to
 * `onAnswer`, and stops when it answers true or when the returned function is called (a part's clean-up).
 * A failed or refused request is skipped: the next one asks again.
 */
export function pollJson<T>(url: string, everyMs: number, onAnswer: (body: T) => boolean | undefined): () => void {
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const timer = setInterval(() => {
    fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" })
      .then((res) => (res.ok ? (res.json() as Promise<T>) : null))
      .then((body) => {
        if (!stopped && body !== null && onAnswer(body) === true) stop();
      })
      .catch(() => undefined);
  }, everyMs);
  return stop;
}

/**
 * A server-side state a page shows live (a data export's, a contact import's): the page renders the state it
 * was loaded in and hands it here; this polls `url` (pollJson) until `finished(state)`, so a reload, or coming
 * back later, finds the job where it is and carries on.
 */
export function usePolled<T>(url: string, initial: T, finished: (state: T) => boolean, everyMs: number): T {
  const [state, setState] = useState(initial);
  useEffect(() => {
    if (finished(initial)) return;
    return pollJson<T>(url, everyMs, (next) => {
      setState(next);
      return finished(next);
    });
  }, [url]);
  return state;
}

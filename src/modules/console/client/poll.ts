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

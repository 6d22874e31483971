/**
 * Reads until `done(value)` holds, then returns that value; throws with the last value on timeout.
 * `done` must describe the FINAL state (e.g. an outcome other than "running"), not mere existence:
 * a row found while its writer is still working has fields that are written later.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`not settled within ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

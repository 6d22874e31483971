import type { Env } from "../env";
import { interceptD1 } from "./intercept";
import { MAX_SHARDS } from "./max-shards";

/**
 * How long one background D1 round trip waits for the requests in flight to finish before it goes
 * anyway: background work slows under a flood of requests but never stops.
 */
export const MAX_DEFER_MS = 25;

let requestsInFlight = 0;
let backgroundStepRunning = false;

/**
 * The gate's state as a test file finds it, and back to idle. Test files run one after another in one
 * workerd process (docs/testing.md): a request an earlier file left hanging (a stream never read to its
 * end) or a background call cut off by `reset()` would otherwise make every background round trip of
 * every later file wait its MAX_DEFER_MS, and order calls that should not wait.
 */
export function resetBackgroundGate(): { requestsInFlight: number; backgroundStepRunning: boolean } {
  const found = { requestsInFlight, backgroundStepRunning };
  requestsInFlight = 0;
  backgroundStepRunning = false;
  return found;
}

/** Serves one request, counted as in flight until its Response is returned (not while its body streams). */
export async function servingRequest(handle: () => Response | Promise<Response>): Promise<Response> {
  requestsInFlight++;
  try {
    return await handle();
  } finally {
    requestsInFlight--;
  }
}

/**
 * One background round trip at a time, and only while no request is being served (or once it has
 * waited MAX_DEFER_MS). It yields to the event loop first so that new connections are accepted.
 * Waiting polls a 1 ms timer: the Workers runtime cancels a continuation that another request's
 * context resolves, so a request cannot wake a waiting consumer.
 */
async function backgroundTurn<T>(call: () => Promise<T>): Promise<T> {
  await scheduler.wait(0);
  const deadline = Date.now() + MAX_DEFER_MS;
  while ((requestsInFlight > 0 || backgroundStepRunning) && Date.now() < deadline) await scheduler.wait(1);
  const mine = !backgroundStepRunning;
  backgroundStepRunning = true;
  try {
    return await call();
  } finally {
    if (mine) backgroundStepRunning = false;
  }
}

const yielded = new WeakMap<D1Database, D1Database>();

/**
 * The D1 binding background work uses (queue consumers, cron sweeps): before each round trip it
 * yields to the event loop and gives way to the requests being served. Locally (`npm run dev`, the
 * bench, the tests) D1 runs in the same workerd thread as the Worker and runs one call at a time, so
 * a request's every D1 call waited behind whatever background call was queued ahead of it: a
 * 300-call chain held a plain GET /health for 254 ms, and with a yield before each call no request
 * waited more than 10 ms; giving way as well means a request waits behind at most one background
 * call in all rather than one per call of its own. In production D1 is remote and each await
 * already yields; there the gate only orders background work after the requests of the same
 * isolate, which share its one thread. Requests keep the plain binding (yielding there too
 * measured worse). One wrapper per binding, so the drizzle instance cached on it is reused.
 */
export function yieldingD1(d1: D1Database): D1Database {
  let wrapped = yielded.get(d1);
  if (!wrapped) {
    wrapped = interceptD1(d1, backgroundTurn);
    yielded.set(d1, wrapped);
  }
  return wrapped;
}

/** Background work's D1 (the control database and every shard) gives way to the requests being served; requests keep the plain bindings. */
export const withYieldingD1 = (env: Env): Env => {
  const out: Record<string, unknown> = { ...env, DB: yieldingD1(env.DB) };
  for (let n = 0; n < MAX_SHARDS; n++) {
    const shard = out[`SHARD_${n}`] as D1Database | undefined;
    if (!shard) break;
    out[`SHARD_${n}`] = yieldingD1(shard);
  }
  return out as unknown as Env;
};

import { interceptD1 } from "./intercept";

const yielded = new WeakMap<D1Database, D1Database>();

/**
 * The D1 binding background work uses (queue consumers, cron sweeps): it yields to the event loop
 * before each round trip. Locally (`npm run dev`, the bench, the tests) D1 runs in the same workerd
 * thread as the Worker, and a chain of awaited D1 calls never lets the loop accept a request: a
 * 300-call chain held a plain GET /health for 254 ms, and with a yield before each call no
 * request waited more than 10 ms. In production D1 is remote and every await already yields, so
 * this costs a timer tick. Requests keep the plain binding: yielding there too measured worse (a
 * request then also waits behind background steps), and so did waiting 1-2 ms instead of 0.
 * One wrapper per binding, so the drizzle instance cached on it is reused.
 */
export function yieldingD1(d1: D1Database): D1Database {
  let wrapped = yielded.get(d1);
  if (!wrapped) {
    wrapped = interceptD1(d1, () => scheduler.wait(0));
    yielded.set(d1, wrapped);
  }
  return wrapped;
}

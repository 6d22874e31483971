import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { createApp } from "../../src/app";
import { interceptD1 } from "../../src/db/intercept";
import type { Env } from "../../src/env";

/**
 * A D1 binding that forwards to the real one and counts round trips (each batch() and each executed
 * statement). Latency on the hot paths is dominated by round trips, so a test can pin their number
 * without timing anything.
 */
export function countingD1(real: D1Database = env.DB): { DB: D1Database; roundTrips: () => number } {
  let roundTrips = 0;
  return { DB: interceptD1(real, (call) => {
    roundTrips++;
    return call();
  }), roundTrips: () => roundTrips };
}

/** Serves one request with a counting D1 binding: its answer and the round trips it made. */
export async function countRoundTrips(req: Request): Promise<{ status: number; body: unknown; roundTrips: number }> {
  const { DB, roundTrips } = countingD1();
  const ctx = createExecutionContext();
  const res = await app.fetch(req, { ...(env as unknown as Env), DB } as Env, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text, roundTrips: roundTrips() };
}

const app = createApp();

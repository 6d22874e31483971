import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
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
  return {
    DB: interceptD1(real, (call) => {
      roundTrips++;
      return call();
    }),
    roundTrips: () => roundTrips,
  };
}

/** The env with the control database and every tenant shard (SHARD_n) counted by one counter. */
export function countingEnv(): { env: Env; roundTrips: () => number } {
  let roundTrips = 0;
  const count = <T>(call: () => Promise<T>) => {
    roundTrips++;
    return call();
  };
  const counted: Record<string, unknown> = { ...(env as unknown as Env) };
  for (const [name, value] of Object.entries(counted)) {
    if (name === "DB" || /^SHARD_\d+$/.test(name)) counted[name] = interceptD1(value as D1Database, count);
  }
  return { env: counted as unknown as Env, roundTrips: () => roundTrips };
}

/** Serves one request with counting D1 bindings: its answer and the round trips it made (all databases). */
export async function countRoundTrips(req: Request): Promise<{ status: number; body: unknown; roundTrips: number }> {
  const { env: counted, roundTrips } = countingEnv();
  const ctx = createExecutionContext();
  const res = await app.fetch(req, counted, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return {
    status: res.status,
    body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
    roundTrips: roundTrips(),
  };
}

const app = createApp();

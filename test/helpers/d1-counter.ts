import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { createApp } from "../../src/app";
import type { Env } from "../../src/env";

/**
 * Counts D1 round trips (each batch() and each executed statement) made while serving one request,
 * by handing the app a D1 binding that forwards to the real one. Latency on the hot paths is
 * dominated by round trips, so a test can pin their number without timing anything.
 */
export async function countRoundTrips(req: Request): Promise<{ status: number; body: unknown; roundTrips: number }> {
  let roundTrips = 0;
  const real = env.DB;
  const wrapStatement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => wrapStatement(value.apply(target, args));
        if (["all", "first", "run", "raw"].includes(prop as string)) {
          return (...args: unknown[]) => {
            roundTrips++;
            return value.apply(target, args);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    originals.set(proxy, stmt);
    return proxy;
  };
  const DB = new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "prepare") return (sql: string) => wrapStatement(target.prepare(sql));
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) => {
          roundTrips++;
          return target.batch(statements.map(unwrap));
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const ctx = createExecutionContext();
  const res = await app.fetch(req, { ...(env as unknown as Env), DB } as Env, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text, roundTrips };
}

const app = createApp();

/** batch() needs the runtime's own statement objects, not proxies. */
const originals = new WeakMap<object, D1PreparedStatement>();
function unwrap(stmt: D1PreparedStatement): D1PreparedStatement {
  return originals.get(stmt) ?? stmt;
}

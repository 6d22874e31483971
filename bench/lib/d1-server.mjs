// One D1 database in a workerd process of its own, reached by the served Worker over loopback the
// way Miniflare reaches a remote binding (`remoteProxyConnectionString`). Locally every D1 database
// of one workerd runs on that workerd's single thread, so shards in one process cannot run side by
// side; in production each D1 database is a single-threaded server on its own machine. A process per
// database restores that: its own thread and its own SQLite file. `serviceTimeMs` (default 0) holds
// the database for that long per statement, serially, like a database whose thread is busy elsewhere.
import { createRequire } from "node:module";
import { workerdPids } from "./processes.mjs";

const { Miniflare } = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"))("miniflare");

const script = /* js */ `
let queue = Promise.resolve();
const stats = { requests: 0, statements: 0, busyMs: 0 };
const statementsIn = (body) => { try { const j = JSON.parse(body); return Array.isArray(j) ? j.length : 1; } catch { return 1; } };
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/__stats") return Response.json(stats);
    const headers = new Headers();
    for (const [k, v] of request.headers) if (k.startsWith("mf-header-")) headers.set(k.slice(10), v);
    const body = await request.text();
    const n = statementsIn(body);
    const serviceMs = Number(env.SERVICE_TIME_MS) * n;
    // one statement at a time per database, as D1 runs them
    const turn = queue.then(async () => {
      const t0 = Date.now();
      const res = await env.DB.fetcher.fetch(request.headers.get("MF-URL") ?? "http://d1/execute", { method: request.method, headers, body });
      const out = new Response(await res.arrayBuffer(), res);
      if (serviceMs > 0) await new Promise((r) => setTimeout(r, serviceMs));
      stats.requests++; stats.statements += n; stats.busyMs += Date.now() - t0;
      return out;
    });
    queue = turn.catch(() => {});
    return turn;
  },
};`;

export async function startD1Server({ id, persist, serviceTimeMs = 0 }) {
  const others = new Set(workerdPids());
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    modules: true,
    script,
    compatibilityDate: "2025-01-01",
    d1Databases: { DB: id },
    ...(persist ? { d1Persist: persist } : {}),
    bindings: { SERVICE_TIME_MS: String(serviceTimeMs) },
  });
  const url = await mf.ready;
  const db = await mf.getD1Database("DB");
  const pid = workerdPids().find((p) => !others.has(p));
  return {
    url,
    db,
    pid,
    stats: async () => (await fetch(new URL("/__stats", url))).json(),
    dispose: () => mf.dispose(),
  };
}

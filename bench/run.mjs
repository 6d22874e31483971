#!/usr/bin/env node
// `npm run bench [case-name-filter]`: serves the built Worker from workerd and loads each case on
// loopback with autocannon. Prints a table and writes bench/results.json.
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bootstrap } from "./lib/bootstrap.mjs";
import { startServer } from "./lib/server.mjs";

const filter = process.argv[2];
const dir = path.join(import.meta.dirname, "cases");
const cases = [];
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith(".mjs"))
  .sort((a, b) => (a === "health.mjs" ? -1 : b === "health.mjs" ? 1 : a.localeCompare(b)))) {
  cases.push((await import(path.join(dir, f))).default);
}

const { mf, url, db } = await startServer({ port: Number(process.env.BENCH_PORT ?? 8790) });
const session = await bootstrap(url);
const rows = [];
try {
  for (const c of cases) {
    if (filter && c.name !== "GET /health" && !c.name.includes(filter)) continue;
    process.stderr.write(`running ${c.name} ...\n`);
    try {
      const r = await c.run({ url, session, mf, db });
      rows.push({ case: c.name, ...r });
    } catch (err) {
      // one failing case does not lose the others' figures
      process.stderr.write(`${c.name} failed: ${err?.stack ?? err}\n`);
      rows.push({ case: c.name, rps: null, extra: { error: String(err?.message ?? err).slice(0, 120) } });
    }
  }
} finally {
  await mf.dispose();
}

const health = rows.find((r) => r.case === "GET /health");
const table = rows.map((r) => ({
  case: r.case,
  "req/s": r.rps,
  "x health": health && r.rps ? +(r.rps / health.rps).toFixed(2) : null,
  "p50 ms": r.p50,
  "p99 ms": r.p99,
  "p50@1 ms": r.p50At1,
  "non-2xx": r.non2xx,
  ...(r.extra ?? {}),
}));
console.table(table);
writeFileSync(
  path.join(import.meta.dirname, "results.json"),
  JSON.stringify({ at: new Date().toISOString(), node: process.version, rows }, null, 2),
);

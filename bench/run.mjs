#!/usr/bin/env node
// `npm run bench [case-name-filter]`: serves the built Worker from workerd and loads each case on
// loopback with autocannon. Prints a table and writes bench/results.json. A trivial Worker (a static
// 200, served the same way) runs first, then /health: every case reads as a ratio to both.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bootstrap } from "./lib/bootstrap.mjs";
import { startServer, startTrivialServer } from "./lib/server.mjs";

const filter = process.argv[2];
const dir = path.join(import.meta.dirname, "cases");
const cases = [];
const TRIVIAL = "trivial Worker (static 200)";
const FLOORS = [TRIVIAL, "GET /health"];
// the floors first: the trivial Worker, then /health
const FIRST = ["trivial.mjs", "health.mjs"];
const rank = (f) => (FIRST.includes(f) ? FIRST.indexOf(f) : FIRST.length);
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith(".mjs"))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))) {
  cases.push((await import(path.join(dir, f))).default);
}

// free ports unless BENCH_PORT / BENCH_TRIVIAL_PORT ask for given ones
const port = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined;
const trivialPort = process.env.BENCH_TRIVIAL_PORT ? Number(process.env.BENCH_TRIVIAL_PORT) : undefined;
const trivial = await startTrivialServer({ port: trivialPort });
const { mf, url, db } = await startServer({ port });
const session = await bootstrap(url);
const rows = [];
try {
  for (const c of cases) {
    if (filter && !FLOORS.includes(c.name) && !c.name.includes(filter)) continue;
    process.stderr.write(`running ${c.name} ...\n`);
    try {
      const r = await c.run({ url, session, mf, db, trivialUrl: trivial.url });
      rows.push({ case: c.name, ...r });
    } catch (err) {
      // one failing case does not lose the others' figures
      process.stderr.write(`${c.name} failed: ${err?.stack ?? err}\n`);
      rows.push({ case: c.name, rps: null, extra: { error: String(err?.message ?? err).slice(0, 120) } });
    }
  }
} finally {
  await mf.dispose();
  await trivial.mf.dispose();
}

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
process.stderr.write(`load average after the run: ${loadAverage()}\n`);
const health = rows.find((r) => r.case === "GET /health");
const floor = rows.find((r) => r.case === TRIVIAL);
// req/s as a share of the floor's (higher is better); the unloaded p50 (1 connection) as a multiple
// of the floor's (lower is better): at 50 connections p50 only mirrors req/s
const ratio = (a, b) => (a && b ? +(a / b).toFixed(2) : null);
const table = rows.map((r) => ({
  case: r.case,
  "req/s": r.rps,
  "x trivial": ratio(r.rps, floor?.rps),
  "x health": ratio(r.rps, health?.rps),
  "p50 ms": r.p50,
  "p99 ms": r.p99,
  "p50@1 ms": r.p50At1,
  "p50@1 x trivial": ratio(r.p50At1, floor?.p50At1),
  "p50@1 x health": ratio(r.p50At1, health?.p50At1),
  // CPU per request read as throughput (floor's CPU over the case's): what req/s would say on a quiet machine
  "cpu µs/req": r.cpuUs,
  "cpu x trivial": ratio(floor?.cpuUs, r.cpuUs),
  "cpu x health": ratio(health?.cpuUs, r.cpuUs),
  "non-2xx": r.non2xx,
  ...(r.extra ?? {}),
}));
console.table(table);
writeFileSync(
  path.join(import.meta.dirname, "results.json"),
  JSON.stringify({ at: new Date().toISOString(), node: process.version, loadAverage: loadAverage(), rows }, null, 2),
);

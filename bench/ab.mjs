#!/usr/bin/env node
// `npm run bench:ab -- <A> <B> [path|redirect]`: a paired comparison of two builds (or a build and the
// trivial Worker) on one path. A and B are bundle directories (`wrangler deploy --dry-run --outdir <dir>`)
// or the word `trivial`. Each is served as `npm run bench` serves it (bench/lib/server.mjs), in a workerd
// process of its own, each side in two (started A B B A); the four are loaded in turns, ROUNDS rounds
// (default 8) of AMOUNT requests (default 3,000) at 50 connections, the order turning each round. Each
// round's figure per side is the CPU its two processes spent per request (/proc schedstat, ns), so a slow
// spell of the shared machine lands on both sides. Prints each side's fastest and median round and the median over the
// rounds of A's CPU per request over B's: above 1, B does the same work with less CPU (docs/performance.md,
// Floor and hot paths, fourth look). `redirect` loads /v1/r/{token}?redirect=1 over seeded links, each
// opened by two visitors, as the bench's redirect case does (every 302 a counted click).
import { readdirSync, readFileSync } from "node:fs";
import { bootstrap } from "./lib/bootstrap.mjs";
import { seedSolicitations } from "./lib/links.mjs";
import { load } from "./lib/load.mjs";
import { workerdPids } from "./lib/processes.mjs";
import { startServer, startTrivialServer } from "./lib/server.mjs";

const [a, b, target = "/health"] = process.argv.slice(2);
if (!a || !b) {
  process.stderr.write("usage: npm run bench:ab -- <bundle dir | trivial> <bundle dir | trivial> [path | redirect]\n");
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const AMOUNT = Number(process.env.AMOUNT ?? 3000);
const LINKS = 40_000;

/** CPU time of the processes' threads, in nanoseconds (schedstat: finer than stat's 10 ms ticks). */
const cpuNs = (pids) => {
  let total = 0;
  for (const pid of pids)
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // a thread that ended between the listing and the read
      }
    }
  return total;
};

const seen = new Set(workerdPids());
async function serve(which) {
  let server;
  if (which === "trivial") server = await startTrivialServer();
  else {
    process.env.BENCH_PREBUILT = which;
    server = await startServer();
  }
  const pids = workerdPids().filter((p) => !seen.has(p));
  for (const p of pids) seen.add(p);
  // the trivial Worker answers any path: on the redirect case it gets one of the same shape
  const fixed = target === "redirect" ? "/v1/r/trivial?redirect=1" : target;
  let next = () => fixed;
  if (target === "redirect" && which !== "trivial") {
    const session = await bootstrap(server.url);
    const rows = await seedSolicitations(server.db, session.tenantId, {
      n: LINKS,
      locationCount: 50,
      destination: (i) => (i % 5 === 0 ? "yelp" : "auto"),
    });
    let i = 0;
    // each link by a first and a second visitor (two user agents), then the next link: two counted clicks
    next = () => {
      const n = i++;
      return {
        path: `/v1/r/${rows[Math.floor(n / 2) % rows.length].short_link_token}?redirect=1`,
        headers: { "user-agent": `bench-visitor-${n % 2}-${Math.floor(n / (2 * rows.length))}` },
      };
    };
  }
  return { name: which.split("/").pop(), server, pids, next };
}

// each side twice, started A B B A: one process of a pair can run a steady ~10% apart from another of
// the same bundle (measured: 1.13 for a bundle against itself with one process a side), whatever its order
const processes = [await serve(a), await serve(b), await serve(b), await serve(a)];
const sideOf = [0, 1, 1, 0];
async function round(p, amount) {
  const before = cpuNs(p.pids);
  const r = await load({ url: p.server.url, path: p.next, connections: 50, amount });
  return (cpuNs(p.pids) - before) / r.requests / 1000;
}
try {
  for (const p of processes) await round(p, 2000); // the JIT's warm-up, unmeasured
  const figures = [[], []];
  const ratios = [];
  for (let r = 0; r < ROUNDS; r++) {
    const got = [0, 0];
    // each round visits the four processes, in an order that turns each round
    for (let k = 0; k < 4; k++) {
      const i = (k + r) % 4;
      got[sideOf[i]] += (await round(processes[i], AMOUNT)) / 2;
    }
    figures[0].push(got[0]);
    figures[1].push(got[1]);
    ratios.push(got[0] / got[1]);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const describe = (i) =>
    `${processes[i].name}: fastest ${Math.min(...figures[i]).toFixed(0)}, median ${median(figures[i]).toFixed(0)} µs/req`;
  console.log(`${target} (${ROUNDS} rounds of ${AMOUNT} per process, two processes a side)`);
  console.log(`  A ${describe(0)}`);
  console.log(`  B ${describe(1)}`);
  console.log(`  A's CPU per request over B's, median of the rounds: ${median(ratios).toFixed(3)}`);
} finally {
  for (const p of processes) await p.server.mf.dispose();
}

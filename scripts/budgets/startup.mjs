// Cold start of a built Worker in workerd (Miniflare, the wrangler dependency), against a trivial
// Worker with the same Durable Object classes. Adapted from the shared startup probe
// (../shared/tools/startup-probe.mjs), which CI's clean clone does not have. One change: the bundle is
// handed to Miniflare as an explicit module list, so Miniflare does not first parse it with acorn in
// Node (that parse, ~0.7 s for this bundle, is a tool cost, not the Worker's start-up).
// The modules wrangler writes beside the bundle (the tokenizer's ranks, a Text module) load with it.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { generateSecrets } from "../lib/secrets.mjs";

const req = createRequire(path.join(process.cwd(), "package.json"));
const { Miniflare } = createRequire(req.resolve("wrangler/package.json"))("miniflare");

/** Exported class names (Durable Objects) of a bundle's final `export { ... }`. */
export function exportedClasses(script) {
  return [...script.matchAll(/export\s*\{([^}]*)\}/g)]
    .flatMap((m) =>
      m[1].split(",").map((x) =>
        x
          .trim()
          .split(/\s+as\s+/)
          .pop(),
      ),
    )
    .filter((n) => n && n !== "default" && /^[A-Z]/.test(n));
}

/**
 * The modules wrangler wrote beside the bundle and the bundle imports (`import x from "./<hash>-name.ext"`),
 * e.g. the tokenizer's ranks and the MCP Apps view script as Text modules: workerd loads them with it.
 */
export function companionModules(file) {
  const script = readFileSync(file, "utf8");
  // `import x from`, and `import { default as x } from` (esbuild's form for a re-exported default)
  const imports = /\bimport\s*(?:[\w$]+|\{[^}]*\})\s*from\s*"\.\/([^"]+)"/g;
  const names = new Set([...script.matchAll(imports)].map((m) => m[1]));
  return [...names].map((name) => {
    const full = path.join(path.dirname(file), name);
    if (/\.m?js$/.test(name)) return { type: "ESModule", path: name, contents: readFileSync(full, "utf8") };
    if (name.endsWith(".wasm")) return { type: "CompiledWasm", path: name, contents: readFileSync(full) };
    if (name.endsWith(".bin")) return { type: "Data", path: name, contents: readFileSync(full) };
    return { type: "Text", path: name, contents: readFileSync(full, "utf8") };
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * CPU time (user + system, ms) spent so far by this process's workerd children, from /proc. CPU, not
 * wall time, so engineers sharing the machine do not inflate the figure much; null off Linux. Read
 * from each thread's schedstat (nanoseconds) where the kernel has it: `stat` counts 10 ms ticks, a
 * fifth of a trivial Worker's whole start-up, so one tick more or less moved the figure by 10 ms.
 */
function workerdCpuMs() {
  let pids;
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  let ms = 0;
  for (const pid of pids) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const f = stat.slice(close + 2).split(" ");
    // fields after the name: state ppid ... utime(14th overall -> index 11) stime(index 12)
    if (!comm.startsWith("workerd") || Number(f[1]) !== process.pid) continue;
    ms += threadsCpuMs(pid) ?? (Number(f[11]) + Number(f[12])) * TICK_MS;
  }
  return ms;
}

/** The sum of a process's threads' run time (first field of /proc/<pid>/task/<tid>/schedstat, ns), or null. */
function threadsCpuMs(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

/**
 * Loads `file` cold `runs` times (a fresh workerd each time) and as many times a trivial Worker;
 * returns each run's time until workerd is ready (script compiled, global scope run) and the
 * difference of the fastest loads (CPU) and of the medians (wall): the bundle's own start-up cost.
 */
export async function measureStartup(file, runs = 5) {
  const script = readFileSync(file, "utf8");
  const companions = companionModules(file);
  const classes = exportedClasses(script);
  const stub =
    classes.map((c) => `export class ${c} { constructor() {} fetch() { return new Response(); } }`).join("\n") +
    '\nexport default { fetch() { return new Response("ok"); } };';
  const options = {
    compatibilityDate: "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
    // start-up runs no request, but the bundle is loaded with the secrets a deployment has (scripts/lib/secrets.mjs)
    bindings: { ...generateSecrets(["JWT_SECRET", "ENCRYPTION_KEY"]), PUBLIC_BASE_URL: "http://localhost" },
    durableObjects: Object.fromEntries(classes.map((c) => [c, { className: c, useSQLite: true }])),
  };
  async function once(contents, extra = []) {
    const t0 = performance.now();
    const mf = new Miniflare({ ...options, modules: [{ type: "ESModule", path: "index.js", contents }, ...extra] });
    await mf.ready;
    const wall = performance.now() - t0;
    const cpu = workerdCpuMs();
    await mf.dispose();
    return { wall, cpu };
  }
  const trivial = [];
  const worker = [];
  for (let i = 0; i < runs; i++) {
    trivial.push(await once(stub));
    worker.push(await once(script, companions));
  }
  const cpuKnown = worker.every((r) => r.cpu !== null);
  return {
    trivial,
    worker,
    wallMs: median(worker.map((r) => r.wall)) - median(trivial.map((r) => r.wall)),
    // noise (other processes, CPU steal in the VM) only ever adds CPU to a load: the fastest of N
    // cold loads is the steadiest estimate of the bundle's own cost, where the median moved by 80 ms
    // between runs on one machine (docs/performance.md)
    cpuMs: cpuKnown ? Math.min(...worker.map((r) => r.cpu)) - Math.min(...trivial.map((r) => r.cpu)) : null,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, runs] = process.argv.slice(2);
  if (!file) {
    console.error("usage: node scripts/budgets/startup.mjs <bundle.js> [runs=5]");
    process.exit(2);
  }
  const r = await measureStartup(file, Number(runs ?? 5));
  const show = (rs, k) => rs.map((x) => x[k]?.toFixed(0)).join(", ");
  console.log(`trivial Worker ready: wall ${show(r.trivial, "wall")} ms; workerd CPU ${show(r.trivial, "cpu")} ms`);
  console.log(`this Worker ready:    wall ${show(r.worker, "wall")} ms; workerd CPU ${show(r.worker, "cpu")} ms`);
  console.log(
    `start-up cost (median difference): CPU ${r.cpuMs?.toFixed(0) ?? "n/a"} ms, wall ${r.wallMs.toFixed(0)} ms`,
  );
}

import autocannon from "autocannon";
import { cpuTicks, workerdPids } from "./processes.mjs";

/** Linux clock ticks are 10 ms (USER_HZ 100). */
const TICK_US = 10_000;

/**
 * CPU time the workerd processes this bench started spent during `work`, in microseconds: the served
 * Worker's isolate, Miniflare's entry worker, D1 and the queue consumers (one process), or the trivial
 * Worker's process. Unlike req/s it does not depend on what else the machine runs (docs/performance.md).
 */
export async function workerdCpu(work) {
  const pids = workerdPids();
  const ticks = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  const before = ticks();
  const result = await work();
  return { result, cpuUs: (ticks() - before) * TICK_US };
}

/**
 * Loads one case: `paths` is a function returning the next request path (so a case can spread over
 * many distinct tokens) or a fixed path. Returns requests/s and latency percentiles in ms.
 */
export async function load({ url, path, headers = {}, method = "GET", body, connections = 50, duration = 5, amount }) {
  const next = typeof path === "function" ? path : () => path;
  const instance = autocannon({
    url,
    connections,
    ...(amount ? { amount } : { duration }),
    headers,
    // `path` may also give {path, headers} per request (e.g. another visitor's user agent)
    requests: [
      {
        method,
        body,
        setupRequest: (req) => {
          const p = next();
          return typeof p === "string"
            ? { ...req, path: p }
            : { ...req, path: p.path, headers: { ...req.headers, ...p.headers } };
        },
      },
    ],
  });
  // autocannon's histogram counts whole milliseconds (sub-ms answers read as 0): keep our own
  const times = [];
  const startedAt = Date.now();
  let lastResponseAt = startedAt;
  instance.on("response", (_client, _status, _bytes, ms) => {
    times.push(ms);
    lastResponseAt = Date.now();
  });
  const { result, cpuUs } = await workerdCpu(() => instance);
  times.sort((a, b) => a - b);
  const pct = (p) =>
    times.length ? +times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(2) : null;
  const non2xx = result.non2xx;
  return {
    // a fixed amount ends mid-second: count up to the last response (autocannon's own duration also
    // holds its wind-down: it notices the end on a 1 s tick, 0.7 s after the last response in one run)
    rps: Math.round(
      amount
        ? result.requests.total / ((lastResponseAt - startedAt) / 1000 || result.duration)
        : result.requests.average,
    ),
    p50: pct(50),
    p95: pct(95),
    p99: pct(99),
    requests: result.requests.total,
    // workerd CPU per request (the D1 and queue work a request causes is in it when it ran during the load)
    cpuUs: result.requests.total ? Math.round(cpuUs / result.requests.total) : null,
    non2xx,
    status3xx: result["3xx"],
    errors: result.errors,
  };
}

/**
 * The standard figures for a case: 50 connections for throughput, tail and CPU per request, 1 for
 * unloaded latency. A warm-up of 1,000 requests first, so the first case after start-up (the floors)
 * does not pay the JIT's warm-up in its figures.
 */
export async function measure(opts) {
  await load({ ...opts, connections: 10, amount: opts.warmup ?? 1_000 });
  const loaded = await load({ ...opts, connections: 50 });
  const single = await load({ ...opts, connections: 1, duration: Math.max(2, Math.round((opts.duration ?? 5) / 2)) });
  return {
    rps: loaded.rps,
    p50: loaded.p50,
    p99: loaded.p99,
    p50At1: single.p50,
    cpuUs: loaded.cpuUs,
    requests: loaded.requests + single.requests,
    non2xx: loaded.non2xx + single.non2xx,
    errors: loaded.errors + single.errors,
  };
}

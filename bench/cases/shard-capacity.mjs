import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { adminCredential, bootstrap } from "../lib/bootstrap.mjs";
import { bytesPerRow } from "../lib/bytes-per-row.mjs";
import { cpuTicks, workerdPids } from "../lib/processes.mjs";
import { waitFor, waitForQuiet } from "../lib/seed.mjs";
import { startServer } from "../lib/server.mjs";

/**
 * Issue #24 item 7: the same mixed load over 1, 2 and 4 shards. Each configuration is a Worker of its
 * own whose control database (= shard 0) and SHARD_1..n-1 each run in a workerd process of their own,
 * with their own SQLite file (bench/lib/d1-server.mjs): locally, databases sharing one workerd share
 * its single thread, so shards inside one process could never run side by side.
 *
 * CAPACITY_SERVICE_MS (default 2) holds a database for that long per statement, one statement at a
 * time: the model of a D1 database, a single-threaded server on a machine of its own. It makes each
 * database, not this machine's two cores, the bottleneck, as in production where the Worker runs on
 * many machines and each database on one thread. CAPACITY_SERVICE_MS=0 measures the bare local engine.
 * Reports per configuration: req/s, p50/p99 per route, writes/s per shard, each database's statements/s
 * and busy share, the Worker process's CPU share; then bytes per row measured on the 1-shard run's data.
 */
const COUNTS = (process.env.CAPACITY_SHARDS ?? "1,2,4").split(",").map(Number);
const SECONDS = Number(process.env.CAPACITY_SECONDS ?? 20);
const SERVICE_MS = Number(process.env.CAPACITY_SERVICE_MS ?? 2);
const TENANTS = 8;
/** a free port unless BENCH_PORT names one (then the next one up) */
const PORT = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) + 1 : undefined;
const CAPACITY_ADMIN = { tenantName: "Capacity Co", tenantSlug: "capacity-co", adminEmail: "capacity@example.test" };
/**
 * Connections per route: writes (contacts, reviews, solicitations) and reads (list, one contact). The
 * D1-free short-link redirect is left out: in a closed loop it would take every spare cycle of the
 * Worker's one thread, which in production is many machines (its own bench: short-link-redirect).
 */
const MIX = { contactCreate: 12, reviewIngest: 10, solicitationCreate: 8, contactsList: 10, contactGet: 8 };
const WRITES = new Set(["contactCreate", "reviewIngest", "solicitationCreate"]);
const EXPECTED = {
  contactCreate: [200, 201],
  reviewIngest: [200, 201],
  solicitationCreate: [201],
  contactsList: [200],
  contactGet: [200],
  redirect: [302],
};
const LABELS = {
  contactCreate: "POST /v1/contacts",
  reviewIngest: "POST /v1/reviews/ingest",
  solicitationCreate: "POST /v1/solicitations",
  contactsList: "GET /v1/contacts",
  contactGet: "GET /v1/contacts/{id}",
  redirect: "GET /v1/r/{token}?redirect=1",
};

export default {
  name: "shard capacity",
  async run() {
    const runs = [];
    const bytes = process.env.CAPACITY_BYTES === "0" ? null : await bytesOfApiData();
    if (bytes) {
      console.table(bytes.perOperation);
      console.table(bytes.perTable);
    }
    for (const shards of COUNTS) {
      process.stderr.write(`  ${shards} shard(s) ...\n`);
      const server = await startServer({ port: PORT, databaseProcesses: shards, serviceTimeMs: SERVICE_MS });
      try {
        const { tenants: _, ...run } = await measure(server, shards);
        runs.push(run);
        process.stderr.write(`  ${JSON.stringify(run)}\n`);
      } finally {
        await server.mf.dispose();
      }
    }
    const one = runs.find((r) => r.shards === 1);
    for (const r of runs) r.writesVsOneShard = one ? +(r.writesPerSecond / one.writesPerSecond).toFixed(2) : null;
    console.table(
      runs.map((r) => ({
        shards: r.shards,
        "req/s": r.rps,
        "writes/s": r.writesPerSecond,
        "x 1 shard": r.writesVsOneShard,
        "writes/s per shard": r.perShard.map((s) => s.writesPerSecond).join(" / "),
        "db busy %": r.perShard.map((s) => s.busyPercent).join(" / "),
        "worker CPU %": r.workerCpuPercent,
        unexpected: r.unexpected,
      })),
    );
    for (const r of runs) console.table(r.routes);
    const summary = {
      at: new Date().toISOString(),
      serviceTimeMs: SERVICE_MS,
      seconds: SECONDS,
      tenants: TENANTS,
      mix: MIX,
      loadAverage: readFileSync("/proc/loadavg", "utf8").trim(),
      runs,
      footprint: bytes,
    };
    writeFileSync(path.join(import.meta.dirname, "../shard-capacity.json"), JSON.stringify(summary, null, 2));
    const best = runs[runs.length - 1];
    return {
      rps: best.rps,
      p50: null,
      p99: null,
      p50At1: null,
      requests: runs.reduce((n, r) => n + r.requests, 0),
      non2xx: runs.reduce((n, r) => n + r.unexpected, 0),
      extra: {
        "writes/s by shards": runs.map((r) => `${r.shards}: ${r.writesPerSecond} (x${r.writesVsOneShard})`).join("; "),
        "service ms": SERVICE_MS,
      },
    };
  },
};

async function measure({ url, databases }, shards) {
  const admin = await adminCredential(url, CAPACITY_ADMIN);
  const api = async (method, p, body, tenantId) => {
    const res = await fetch(`${url}${p}`, {
      method,
      body: body && JSON.stringify(body),
      headers: {
        ...admin.headers,
        ...(tenantId ? { "x-tenant-id": tenantId } : {}),
        "content-type": "application/json",
        "idempotency-key": crypto.randomUUID(),
      },
    });
    const json = await res.json().catch(() => null);
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };
  // one agency per tenant: placement puts each new agency's first tenant on the emptiest shard
  const tenants = [];
  for (let i = 0; i < TENANTS; i++) {
    const agency = await api("POST", "/admin/agencies", { name: `Capacity agency ${i}`, slug: `cap-agency-${i}` });
    const tenant = await api("POST", "/agency/tenants", {
      name: `Capacity ${i}`,
      slug: `cap-${i}`,
      agencyId: agency.id,
    });
    await api(
      "PUT",
      "/v1/compliance",
      {
        requireEmailConsent: false,
        frequencyCapDaily: 100,
        frequencyCapWeekly: 100,
        quietHoursStart: "00:00",
        quietHoursEnd: "00:00",
      },
      tenant.id,
    );
    const location = await api(
      "POST",
      "/v1/locations",
      { name: `Store ${i}`, googlePlaceId: `ChIJcap${i}` },
      tenant.id,
    );
    const contacts = [];
    for (let c = 0; c < 20; c++)
      contacts.push(
        (
          await api(
            "POST",
            "/v1/contacts",
            { email: `setup${c}@t${i}.example`, firstName: "Setup", lastName: `C${c}` },
            tenant.id,
          )
        ).id,
      );
    const tokens = [];
    for (let c = 0; c < 10; c++)
      tokens.push(
        (
          await api(
            "POST",
            "/v1/solicitations",
            { locationId: location.id, contactId: contacts[c], channel: "email" },
            tenant.id,
          )
        ).shortLinkToken,
      );
    tenants.push({ id: tenant.id, locationId: location.id, contacts, tokens });
  }
  const directory = new Map(
    (await databases[0].db.prepare("select id, shard from tenants").all()).results.map((r) => [r.id, r.shard]),
  );
  for (const t of tenants) t.shard = directory.get(t.id);

  const generators = requestGenerators(admin, tenants);
  await closedLoop(url, generators, 3); // warm-up: isolate, caches, prepared statements
  const before = await Promise.all(databases.map((d) => d.stats()));
  const worker = workerdPids().filter((pid) => !databases.some((d) => d.pid === pid));
  const cpuBefore = worker.map(cpuTicks);
  const started = performance.now();
  const routes = await closedLoop(url, generators, SECONDS);
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = worker.map(cpuTicks);
  const after = await Promise.all(databases.map((d) => d.stats()));
  const ticks = cpuAfter.reduce((n, t, i) => n + (t - cpuBefore[i]), 0);

  const writesByShard = new Map();
  for (const r of routes)
    if (WRITES.has(r.name))
      for (const [shard, n] of r.okByShard) writesByShard.set(shard, (writesByShard.get(shard) ?? 0) + n);
  const perShard = databases.map((_, n) => ({
    shard: n,
    tenants: tenants.filter((t) => t.shard === n).length,
    writesPerSecond: Math.round((writesByShard.get(n) ?? 0) / elapsed),
    statementsPerSecond: Math.round((after[n].statements - before[n].statements) / elapsed),
    busyPercent: Math.round((100 * (after[n].busyMs - before[n].busyMs)) / (elapsed * 1000)),
  }));
  return {
    tenants,
    shards,
    seconds: +elapsed.toFixed(1),
    rps: routes.reduce((n, r) => n + r.rps, 0),
    writesPerSecond: perShard.reduce((n, s) => n + s.writesPerSecond, 0),
    requests: routes.reduce((n, r) => n + r.requests, 0),
    unexpected: routes.reduce((n, r) => n + r.unexpected + r.errors, 0),
    // one core = 100; the Worker's workerd (every request's JavaScript, queues, DOs), not the databases'
    workerCpuPercent: Math.round((100 * ticks) / 100 / elapsed),
    perShard,
    routes: routes.map((r) => ({
      shards,
      route: LABELS[r.name],
      connections: MIX[r.name],
      "req/s": r.rps,
      "p50 ms": r.p50,
      "p99 ms": r.p99,
      unexpected: r.unexpected,
      errors: r.errors,
    })),
  };
}

function requestGenerators(admin, tenants) {
  const headersOf = (t, extra = {}) => ({ authorization: admin.headers.authorization, "x-tenant-id": t.id, ...extra });
  const json = { "content-type": "application/json" };
  const make = {
    contactCreate: (n, t) => ({
      method: "POST",
      path: "/v1/contacts",
      headers: headersOf(t, json),
      body: JSON.stringify({
        email: `load${n}-${Math.random().toString(36).slice(2, 8)}@example.test`,
        firstName: "Load",
        lastName: `N${n}`,
      }),
    }),
    reviewIngest: (n, t) => ({
      method: "POST",
      path: "/v1/reviews/ingest",
      headers: headersOf(t, json),
      body: JSON.stringify({
        locationId: t.locationId,
        siteType: "google",
        externalReviewId: `cap-${n}-${Math.random().toString(36).slice(2, 8)}`,
        rating: 1 + (n % 5),
        text: "Friendly staff and quick service",
        authorName: `Guest ${n}`,
      }),
    }),
    solicitationCreate: (n, t) => ({
      method: "POST",
      path: "/v1/solicitations",
      headers: headersOf(t, { ...json, "idempotency-key": crypto.randomUUID() }),
      body: JSON.stringify({
        locationId: t.locationId,
        contactId: t.contacts[n % t.contacts.length],
        channel: "email",
      }),
    }),
    contactsList: (_n, t) => ({ method: "GET", path: "/v1/contacts?limit=50", headers: headersOf(t) }),
    contactGet: (n, t) => ({
      method: "GET",
      path: `/v1/contacts/${t.contacts[n % t.contacts.length]}`,
      headers: headersOf(t),
    }),
    redirect: (n, t) => ({ method: "GET", path: `/v1/r/${t.tokens[n % t.tokens.length]}?redirect=1` }),
  };
  return Object.fromEntries(
    Object.entries(make).map(([name, build]) => {
      let n = 0;
      return [
        name,
        () => {
          const i = n++;
          const tenant = tenants[i % tenants.length];
          return { tenant, request: build(Math.floor(i / tenants.length), tenant) };
        },
      ];
    }),
  );
}

/** Every route of the mix at once, each its own autocannon closed loop; 2xx counted per tenant shard. */
async function closedLoop(url, generators, seconds) {
  return Promise.all(
    Object.entries(MIX).map(async ([name, connections]) => {
      const times = [];
      const okByShard = new Map();
      let unexpected = 0;
      const instance = autocannon({
        url,
        connections,
        duration: seconds,
        requests: [
          {
            setupRequest: (req, context) => {
              const { tenant, request } = generators[name]();
              context.shard = tenant.shard;
              return { ...req, ...request };
            },
            onResponse: (status, _body, context) => {
              if (EXPECTED[name].includes(status))
                okByShard.set(context.shard, (okByShard.get(context.shard) ?? 0) + 1);
              else unexpected++;
            },
          },
        ],
      });
      instance.on("response", (_client, _status, _bytes, ms) => times.push(ms));
      const result = await instance;
      times.sort((a, b) => a - b);
      const pct = (p) =>
        times.length ? +times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(1) : null;
      return {
        name,
        rps: Math.round(times.length / result.duration),
        p50: pct(50),
        p99: pct(99),
        requests: times.length,
        unexpected,
        errors: result.errors + result.timeouts,
        okByShard,
      };
    }),
  );
}

/**
 * Bytes per row, on data the API wrote: one tenant on a database process without service time gets
 * BYTES_ROWS contacts, reviews and solicitations (each sent through the queue: outbox, send records,
 * events, audit rows) and 2x as many short-link clicks. Per operation: the database's growth and the
 * D1 calls/statements it took, background work included; then bytes per row of each table (bytesPerRow).
 */
const BYTES_ROWS = Number(process.env.CAPACITY_BYTES_ROWS ?? 1_000);
async function bytesOfApiData() {
  process.stderr.write(`  bytes per row (${BYTES_ROWS} of each through the API) ...\n`);
  const server = await startServer({ port: PORT, databaseProcesses: 1, serviceTimeMs: 0 });
  try {
    const { url, db } = server;
    const { tenantId: tenant, headers: admin } = await bootstrap(url, CAPACITY_ADMIN);
    const headers = { ...admin, "content-type": "application/json" };
    const post = async (p, body) => {
      const res = await fetch(`${url}${p}`, {
        method: "POST",
        headers: { ...headers, "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`POST ${p}: ${res.status} ${(await res.text()).slice(0, 200)}`);
      return res.json();
    };
    await fetch(`${url}/v1/compliance`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ requireEmailConsent: false, quietHoursStart: "00:00", quietHoursEnd: "00:00" }),
    });
    const location = await post("/v1/locations", { name: "Bytes store", googlePlaceId: "ChIJbytes" });
    const t = { id: tenant, locationId: location.id, contacts: [], tokens: [] };
    const parallel = async (n, make) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < n) await make(next++);
        }),
      );
    };
    // each operation's whole footprint: database growth and D1 statements, the queue work it causes included
    const [shard] = server.databases;
    await db.prepare("create table if not exists bench_size_probe (k text primary key, v integer)").run();
    const size = async () =>
      (await db.prepare("insert or replace into bench_size_probe (k, v) values ('probe', 1)").run()).meta.size_after;
    const perOperation = [];
    const tables = (
      await db
        .prepare(
          "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name not like 'd1_%' and name != 'bench_size_probe'",
        )
        .all()
    ).results.map((r) => r.name);
    const rowCounts = async () =>
      Object.fromEntries(
        (await db.batch(tables.map((t) => db.prepare(`select count(*) as n from "${t}"`)))).map((r, i) => [
          tables[i],
          r.results[0].n,
        ]),
      );
    const phase = async (operation, count, work) => {
      await waitForQuiet(db);
      const [bytes0, stats0, rows0] = [await size(), await shard.stats(), await rowCounts()];
      await work();
      await waitForQuiet(db);
      const [bytes1, stats1, rows1] = [await size(), await shard.stats(), await rowCounts()];
      const rowsEach = Object.entries(rows1)
        .filter(([t, n]) => n !== rows0[t])
        .map(([t, n]) => `${t} ${+((n - rows0[t]) / count).toFixed(2)}`)
        .join(", ");
      perOperation.push({
        operation,
        count,
        "bytes each": Math.round((bytes1 - bytes0) / count),
        "rows each": rowsEach,
        "D1 calls each": +((stats1.requests - stats0.requests) / count).toFixed(1),
        "statements each": +((stats1.statements - stats0.statements) / count).toFixed(1),
        "local ms each": +((stats1.busyMs - stats0.busyMs) / count).toFixed(2),
      });
    };
    await phase("POST /v1/contacts", BYTES_ROWS, () =>
      parallel(BYTES_ROWS, async (i) =>
        t.contacts.push(
          (
            await post("/v1/contacts", {
              email: `bytes${i}@example.test`,
              firstName: "Olivia",
              lastName: `Smith ${i}`,
              phone: `+1415${2_000_000 + i}`,
            })
          ).id,
        ),
      ),
    );
    await phase("POST /v1/reviews/ingest", BYTES_ROWS, () =>
      parallel(BYTES_ROWS, (i) =>
        post("/v1/reviews/ingest", {
          locationId: location.id,
          siteType: "google",
          externalReviewId: `bytes-${i}`,
          rating: 1 + (i % 5),
          text: "Friendly staff and quick service, the new location is great and parking was easy",
          authorName: `Guest ${i}`,
        }),
      ),
    );
    await phase("POST /v1/solicitations (sent)", BYTES_ROWS, () =>
      parallel(BYTES_ROWS, async (i) =>
        t.tokens.push(
          (await post("/v1/solicitations", { locationId: location.id, contactId: t.contacts[i], channel: "email" }))
            .shortLinkToken,
        ),
      ),
    );
    await phase("GET /v1/r/{token} (click)", 2 * BYTES_ROWS, async () => {
      let n = 0;
      // two visitors per link (a user agent each): a visitor's repeated opens count once (docs/links.md, Clicks)
      await autocannon({
        url,
        connections: 10,
        amount: 2 * BYTES_ROWS,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              method: "GET",
              headers: { ...req.headers, "user-agent": `bench-visitor-${n}` },
              path: `/v1/r/${t.tokens[n++ % t.tokens.length]}?redirect=1`,
            }),
          },
        ],
      });
      await waitFor(
        async () => (await db.prepare("select count(*) as n from link_clicks").first()).n >= 2 * BYTES_ROWS,
        30_000,
      );
    });
    return { perOperation, perTable: await bytesPerRow(db) };
  } finally {
    await server.mf.dispose();
  }
}

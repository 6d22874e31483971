import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { seedSolicitations } from "../lib/links.mjs";
import { workerdPids } from "../lib/processes.mjs";
import { ensureContacts, waitForQuiet } from "../lib/seed.mjs";

const TENANTS = 20;
const CONTACTS_PER_TENANT = 2_000;
const LINKS_PER_TENANT = 1_000; // per kind (redirect, feedback page): more than a minute of load opens
/** The mixed run's length; MIX_SECONDS=10 for a quick look. */
const SECONDS = Number(process.env.MIX_SECONDS ?? 60);
/** Each route alone first, for this long: its unloaded latency. */
const BASELINE_SECONDS = Number(process.env.MIX_BASELINE_SECONDS ?? 30);
/** Connections per route in the mix (50 in all): the share of traffic a busy tenant base would send. */
const MIX = {
  redirect: 15,
  feedbackPage: 10,
  contactsList: 6,
  contactsSearch: 6,
  reviewIngest: 6,
  solicitationCreate: 7,
};
const TARGET_P99_FACTOR = 3;
/**
 * Offered load per phase in requests/s over all routes (split like the connections); 0 = as fast as
 * the server answers (saturation: with 50 connections in a closed loop, latency is then mostly queueing).
 */
const RATES = (process.env.MIX_RATES ?? "100,0").split(",").map(Number);
/**
 * The unloaded baseline offers each route alone the rate it gets in the first paced phase, from the
 * same number of clients: the only difference to the mix is the other routes. (A closed loop on one
 * connection is not "unloaded": it keeps the server busy back to back and never lets it idle, and
 * on this VM an idle process answers later: /health alone is 0.36 ms closed-loop but 3.4 ms at p50
 * paced at 100 req/s, from wake-ups, so a closed-loop baseline is not comparable with paced load.)
 */
const BASELINE_RATE = RATES.find((r) => r > 0) ?? 100;
const routeRate = (rate, connections) => Math.max(1, Math.round((rate * connections) / 50));
/**
 * Where in its first slot route k's schedule starts, as a fraction of the slot: spread by the golden
 * ratio so that no two routes' schedules line up. (Every route's clients send every 500 ms; started
 * in phase, all six routes fired at the same instant twice a second, a burst real traffic from
 * independent clients does not have, and the last request of each burst waited for the other five.)
 */
const phaseOf = (k) => (k * 0.6180339887) % 1;

/**
 * Mixed load across 20 tenants: short-link redirects, feedback page views, contact list and search,
 * review ingest and solicitation creates at once, for MIX_SECONDS (default 60), after each route's
 * unloaded latency alone (MIX_BASELINE_SECONDS each, default 30, at its rate in the mix). Reports
 * per route requests/s, p50/p99, unexpected statuses and the
 * p99/unloaded-p99 ratio, at each offered rate of MIX_RATES (default "100,0": 100 req/s, then
 * saturation); the workerd process's peak memory; and afterwards that every solicitation created
 * under load left PENDING through the SENDS queue. Writes bench/mixed-load.json.
 */
export default {
  name: "mixed load (20 tenants)",
  async run({ url, session, db }) {
    const api = async (method, p, body, tenantId = session.tenantId) => {
      const res = await fetch(`${url}${p}`, {
        method,
        headers: { ...session.headers, "x-tenant-id": tenantId, "content-type": "application/json" },
        body: body && JSON.stringify(body),
      });
      const json = await res.json().catch(() => null);
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
      return json;
    };

    // 20 tenants of their own in the house agency (the bootstrap tenant is left to the other cases,
    // whose counts it would skew), each with locations, contacts, links, and compliance that lets the
    // creates through (no consent needed, high caps, no quiet hours)
    const tenants = [];
    const stamp = Date.now().toString(36);
    for (let i = 0; i < TENANTS; i++)
      tenants.push((await api("POST", "/agency/tenants", { name: `Mix ${i}`, slug: `mix-${stamp}-${i}` })).id);
    const perTenant = [];
    for (const tenantId of tenants) {
      await api(
        "PUT",
        "/v1/compliance",
        {
          requireEmailConsent: false,
          frequencyCapDaily: 100,
          frequencyCapWeekly: 500,
          quietHoursStart: "00:00",
          quietHoursEnd: "00:00",
        },
        tenantId,
      );
      await ensureContacts(db, tenantId, CONTACTS_PER_TENANT);
      const redirects = await seedSolicitations(db, tenantId, {
        n: LINKS_PER_TENANT,
        locationCount: 5,
        destination: (i) => (i % 5 === 0 ? "yelp" : "auto"),
      });
      const feedback = await seedSolicitations(db, tenantId, {
        n: LINKS_PER_TENANT,
        locationCount: 5,
        destination: () => "feedback",
      });
      const contacts = (
        await db.prepare("select id from contacts where tenant_id = ? limit 1000").bind(tenantId).all()
      ).results.map((r) => r.id);
      perTenant.push({
        tenantId,
        locationId: redirects[0].location_id,
        contacts,
        redirects: redirects.map((r) => r.short_link_token),
        feedback: feedback.map((r) => r.short_link_token),
      });
    }

    const routes = requestGenerators(session, perTenant);
    const baseline = {};
    // each baseline starts once the consumers are idle: the queue work a route causes (clicks, sends,
    // events) counts in its own baseline, never in the next route's
    for (const [name, next] of Object.entries(routes)) {
      await waitForQuiet(db);
      baseline[name] = await paced(url, name, next, MIX[name], BASELINE_SECONDS, routeRate(BASELINE_RATE, MIX[name]));
    }
    await waitForQuiet(db);

    const workerd = workerdPids();
    const memory = { peakRssKb: 0 };
    const sampler = setInterval(() => {
      for (const pid of workerd) memory.peakRssKb = Math.max(memory.peakRssKb, statusKb(pid, "VmRSS") ?? 0);
    }, 250);
    const phases = [];
    for (const rate of RATES) {
      const started = performance.now();
      const loaded = await Promise.all(
        Object.entries(MIX).map(([name, connections], k) =>
          rate
            ? paced(url, name, routes[name], connections, SECONDS, routeRate(rate, connections), phaseOf(k))
            : run(url, name, routes[name], connections, SECONDS),
        ),
      );
      const elapsed = (performance.now() - started) / 1000;
      const rows = loaded.map((r) => {
        const base = baseline[r.name];
        return {
          route: r.label,
          connections: r.connections,
          "offered req/s": r.rate || "max",
          "req/s": r.rps,
          "p50 ms": r.p50,
          "p99 ms": r.p99,
          "unloaded p50 ms": base.p50,
          "unloaded p99 ms": base.p99,
          "p99 / unloaded": base.p99 ? +(r.p99 / base.p99).toFixed(2) : null,
          requests: r.requests,
          unexpected: r.unexpected,
          "socket errors": r.errors + r.timeouts,
        };
      });
      console.table(rows);
      phases.push({
        offered: rate || "max",
        elapsed: +elapsed.toFixed(1),
        totalRps: rows.reduce((n, r) => n + r["req/s"], 0),
        unexpected: rows.reduce((n, r) => n + r.unexpected + r["socket errors"], 0),
        p99WithinFactor: rows.every((r) => r["p99 / unloaded"] !== null && r["p99 / unloaded"] <= TARGET_P99_FACTOR),
        rows,
      });
    }
    clearInterval(sampler);
    const hwmKb = Math.max(0, ...workerd.map((pid) => statusKb(pid, "VmHWM") ?? 0));

    // nothing lost: every solicitation created under load leaves PENDING (sent to the outbox) through the queue
    const createdIds = routes.solicitationCreate.created;
    const pendingLeft = async () =>
      (
        await db
          .prepare(
            "select count(*) as n from solicitations where status = 'PENDING' and id in (select value from json_each(?))",
          )
          .bind(JSON.stringify(createdIds))
          .first()
      ).n;
    const drainStart = performance.now();
    while ((await pendingLeft()) > 0 && performance.now() - drainStart < 120_000)
      await new Promise((r) => setTimeout(r, 500));
    const drained = (performance.now() - drainStart) / 1000;
    const statuses = Object.fromEntries(
      (
        await db
          .prepare(
            "select status, count(*) as n from solicitations where id in (select value from json_each(?)) group by status",
          )
          .bind(JSON.stringify(createdIds))
          .all()
      ).results.map((r) => [r.status, r.n]),
    );
    const deadLetters = (await db.prepare("select count(*) as n from dead_letters").first()).n;
    const summary = {
      at: new Date().toISOString(),
      seconds: SECONDS,
      baselineSeconds: BASELINE_SECONDS,
      baselineRate: BASELINE_RATE,
      tenants: TENANTS,
      loadAverage: readFileSync("/proc/loadavg", "utf8").trim(),
      workerd: {
        pids: workerd,
        peakRssMbDuringMix: +(memory.peakRssKb / 1024).toFixed(1),
        vmHwmMb: +(hwmKb / 1024).toFixed(1),
      },
      solicitations: { created: createdIds.length, statuses, drainedAfterSeconds: +drained.toFixed(1) },
      deadLetters,
      phases,
    };
    writeFileSync(path.join(import.meta.dirname, "../mixed-load.json"), JSON.stringify(summary, null, 2));
    // the events of the load keep the consumers busy after it: let them drain before the next case
    await waitForQuiet(db);
    const main = phases[0];
    return {
      rps: main.totalRps,
      p50: null,
      p99: null,
      p50At1: null,
      requests: phases.reduce((n, p) => n + p.rows.reduce((m, r) => m + r.requests, 0), 0),
      non2xx: phases.reduce((n, p) => n + p.unexpected, 0),
      extra: {
        phases: phases.map((p) => `${p.offered}: ${p.totalRps} req/s, p99 within 3x: ${p.p99WithinFactor}`).join("; "),
        "workerd peak RSS MB": summary.workerd.peakRssMbDuringMix,
        "workerd VmHWM MB": summary.workerd.vmHwmMb,
        "creates still PENDING": statuses.PENDING ?? 0,
        "dead letters": deadLetters,
      },
    };
  },
};

/** One request factory per route, each spreading its requests over the 20 tenants. */
function requestGenerators(session, perTenant) {
  const headersOf = (t, extra = {}) => ({
    authorization: session.headers.authorization,
    "x-tenant-id": t.tenantId,
    ...extra,
  });
  const cycle = () => {
    let i = 0;
    return () => i++;
  };
  const [r, f, l, s, ingestN, createN] = [cycle(), cycle(), cycle(), cycle(), cycle(), cycle()];
  const tenantOf = (n) => perTenant[n % perTenant.length];
  const created = [];
  const solicitationCreate = (n) => {
    const t = tenantOf(n);
    return {
      method: "POST",
      path: "/v1/solicitations",
      headers: headersOf(t, { "content-type": "application/json", "idempotency-key": crypto.randomUUID() }),
      body: JSON.stringify({
        locationId: t.locationId,
        contactId: t.contacts[Math.floor(n / perTenant.length) % t.contacts.length],
        channel: "email",
      }),
    };
  };
  const routes = {
    redirect: (n) => {
      const t = tenantOf(n);
      return {
        method: "GET",
        path: `/v1/r/${t.redirects[Math.floor(n / perTenant.length) % t.redirects.length]}?redirect=1`,
      };
    },
    feedbackPage: (n) => {
      const t = tenantOf(n);
      return { method: "GET", path: `/f/${t.feedback[Math.floor(n / perTenant.length) % t.feedback.length]}` };
    },
    contactsList: (n) => ({ method: "GET", path: "/v1/contacts?limit=50", headers: headersOf(tenantOf(n)) }),
    contactsSearch: (n) => ({
      method: "GET",
      path: "/v1/contacts?limit=50&search=olivia%20sm",
      headers: headersOf(tenantOf(n)),
    }),
    reviewIngest: (n) => {
      const t = tenantOf(n);
      return {
        method: "POST",
        path: "/v1/reviews/ingest",
        headers: headersOf(t, { "content-type": "application/json" }),
        body: JSON.stringify({
          locationId: t.locationId,
          siteType: "google",
          externalReviewId: `mix-${n}-${Math.random().toString(36).slice(2, 8)}`,
          rating: 1 + (n % 5),
          text: n % 3 ? "Friendly staff and quick service, will come back" : "Waited too long and the order was wrong",
          authorName: `Guest ${n}`,
        }),
      };
    },
    solicitationCreate,
  };
  const counters = {
    redirect: r,
    feedbackPage: f,
    contactsList: l,
    contactsSearch: s,
    reviewIngest: ingestN,
    solicitationCreate: createN,
  };
  return Object.fromEntries(
    Object.entries(routes).map(([name, make]) => {
      const next = () => make(counters[name]());
      if (name === "solicitationCreate") next.created = created;
      return [name, next];
    }),
  );
}

const LABELS = {
  redirect: "GET /v1/r/{token}?redirect=1",
  feedbackPage: "GET /f/{token}",
  contactsList: "GET /v1/contacts",
  contactsSearch: "GET /v1/contacts?search=",
  reviewIngest: "POST /v1/reviews/ingest",
  solicitationCreate: "POST /v1/solicitations",
};
/** What each route answers when all is well (a redirect is a 302; ingest 201; a create 201). */
const EXPECTED = {
  redirect: [302],
  feedbackPage: [200],
  contactsList: [200],
  contactsSearch: [200],
  reviewIngest: [200, 201],
  solicitationCreate: [201],
};

/**
 * An offered rate, paced: autocannon's rate limit lets each connection fire its whole quota at the
 * start of every second and then wait, so "100 req/s" arrives as one burst of 100 a second and the
 * percentiles measure the burst. Here each of `workers` clients sends on its own evenly
 * spaced schedule (staggered; Node's fetch keeps connections alive), so requests arrive spread over
 * the second, as real traffic does. A request that outlasts its slot delays the next one of that
 * worker (counted from its schedule). With rate 0 each worker is a closed loop. `phase` (0..1) shifts
 * the whole schedule by that fraction of one worker's slot.
 */
async function paced(url, name, next, workers, seconds, rate = 0, phase = 0) {
  const times = [];
  const seen = {};
  let unexpected = 0;
  let errors = 0;
  const interval = rate ? (1000 * workers) / rate : 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const worker = async (i) => {
    let due = started + (interval * (i + phase)) / workers;
    while (due < end) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const req = next();
      const t0 = performance.now();
      try {
        const res = await fetch(url + req.path, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          redirect: "manual",
          signal: AbortSignal.timeout(10_000),
        });
        const body = await res.text();
        times.push(performance.now() - t0);
        seen[res.status] = (seen[res.status] ?? 0) + 1;
        if (!EXPECTED[name].includes(res.status)) unexpected++;
        if (name === "solicitationCreate" && res.status === 201) next.created.push(JSON.parse(body).id);
      } catch {
        errors++;
      }
      due = interval ? due + interval : performance.now();
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const pct = (p) =>
    times.length ? +times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(2) : null;
  if (unexpected) process.stderr.write(`${name}: statuses ${JSON.stringify(seen)}\n`);
  return {
    name,
    label: LABELS[name],
    connections: workers,
    rate,
    rps: Math.round(times.length / elapsed),
    p50: pct(50),
    p99: pct(99),
    requests: times.length,
    unexpected,
    errors,
    timeouts: 0,
  };
}

/** One autocannon instance for one route, closed loop (saturation); latencies kept per response (autocannon's histogram rounds to whole ms). */
async function run(url, name, next, connections, seconds) {
  const times = [];
  let unexpected = 0;
  const seen = {};
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => ({ ...req, ...next() }),
        onResponse: (status, body) => {
          if (name === "solicitationCreate" && status === 201) next.created.push(JSON.parse(body).id);
        },
      },
    ],
  });
  instance.on("response", (_client, status, _bytes, ms) => {
    times.push(ms);
    seen[status] = (seen[status] ?? 0) + 1;
    if (!EXPECTED[name].includes(status)) unexpected++;
  });
  const result = await instance;
  times.sort((a, b) => a - b);
  const pct = (p) =>
    times.length ? +times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(2) : null;
  if (unexpected) process.stderr.write(`${name}: statuses ${JSON.stringify(seen)}\n`);
  return {
    name,
    label: LABELS[name],
    connections,
    rate: 0,
    rps: Math.round(times.length / result.duration),
    p50: pct(50),
    p99: pct(99),
    requests: times.length,
    unexpected,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

const statusKb = (pid, field) => {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
};

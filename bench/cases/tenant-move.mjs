import { createHash } from "node:crypto";
import { adminCredential } from "../lib/bootstrap.mjs";
import { insertRows, newBenchId, waitFor } from "../lib/seed.mjs";
import { startServer } from "../lib/server.mjs";

const CONTACTS = 50_000;
/** a server of its own, with two shards (each database in a workerd process of its own, as deployed) */
const PORT = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) + 2 : undefined;
const SOLICITATIONS = 50_000;
/** tables the control plane keeps (src/db/shards.ts CONTROL_TABLES) that carry a tenant_id */
const CONTROL_WITH_TENANT = new Set([
  "users",
  "api_keys",
  "user_tokens",
  "sso_configs",
  "saml_requests",
  "saml_assertions",
  "tenant_moves",
]);

/** Rows of the tenant per tenant-owned table on one database. */
async function counts(d1, tenantId) {
  const names = (
    await d1
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' and name != 'd1_migrations'",
      )
      .all()
  ).results.map((r) => r.name);
  const out = {};
  for (const t of names.filter((t) => !CONTROL_WITH_TENANT.has(t))) {
    const cols = (await d1.prepare(`pragma table_info("${t}")`).all()).results;
    if (!cols.some((c) => c.name === "tenant_id")) continue;
    const n = (await d1.prepare(`select count(*) as n from "${t}" where tenant_id = ?`).bind(tenantId).first()).n;
    if (n) out[t] = n;
  }
  return out;
}

/** SHA-256 over the tenant's rows of a table in id order, read in keyset pages (computed here, not by the job). */
async function digest(d1, table, tenantId) {
  const hash = createHash("sha256");
  let after = "";
  for (;;) {
    const page = (
      await d1
        .prepare(`select * from "${table}" where tenant_id = ? and id > ? order by id limit 5000`)
        .bind(tenantId, after)
        .all()
    ).results;
    if (!page.length) return hash.digest("hex");
    for (const row of page) hash.update(JSON.stringify(row));
    after = page[page.length - 1].id;
  }
}

/**
 * A tenant with 50,000 contacts + 50,000 solicitations on shard 0 moved to shard 1 by the move job
 * (POST /admin/tenants/{id}/move, then GET /admin/tenant-moves/{id} until it has finished), with the
 * default settings: 500-row chunks, at most 40 chunks (and 10 s) a message, 10 s settle after fencing and after the flip.
 * Rows lost = source rows before - target rows after (per table); checksums compared here too.
 */
export default {
  name: "tenant-move: 50k contacts + 50k solicitations, shard 0 -> 1",
  async run() {
    const server = await startServer({ port: PORT, databaseProcesses: 2 });
    try {
      return await measure(
        server.url,
        await adminCredential(server.url, {
          tenantName: "Move Co",
          tenantSlug: "move-co",
          adminEmail: "move@example.test",
        }),
        server.shards,
      );
    } finally {
      await server.mf.dispose();
    }
  },
};

async function measure(url, session, shards) {
  const [source, target] = [shards[0], shards[1]];
  const db = source;
  const now = new Date().toISOString();
  const tenantId = newBenchId("ten");
  const brandId = newBenchId("brd");
  const locationId = newBenchId("loc");
  await db.batch([
    db
      .prepare(
        "insert into tenants (id, agency_id, slug, name, plan, is_active, shard, created_at, updated_at) values (?, 'agency_house', ?, 'Moving Co', 'starter', 1, 0, ?, ?)",
      )
      .bind(tenantId, `moving-${tenantId.slice(-8)}`, now, now),
    db
      .prepare(
        "insert into brands (id, tenant_id, name, slug, created_at, updated_at) values (?, ?, 'Moving', 'moving', ?, ?)",
      )
      .bind(brandId, tenantId, now, now),
    db
      .prepare(
        "insert into locations (id, tenant_id, brand_id, name, created_at, updated_at) values (?, ?, ?, 'Moving store', ?, ?)",
      )
      .bind(locationId, tenantId, brandId, now, now),
  ]);
  const seedStarted = performance.now();
  const contactIds = [];
  for (let i = 0; i < CONTACTS; i += 5_000) {
    const rows = Array.from({ length: 5_000 }, (_, j) => ({
      id: newBenchId("con"),
      tenant_id: tenantId,
      email: `move.${i + j}@bench.example`,
      first_name: `Guest${i + j}`,
      last_name: "Move",
      is_suppressed: 0,
      external_ids: "{}",
      source_metadata: "{}",
      name_key: `guest${i + j} move`,
      name_key_reversed: `move guest${i + j}`,
      last_activity_at: now,
      created_at: now,
      updated_at: now,
    }));
    contactIds.push(...rows.map((r) => r.id));
    await insertRows(source, "contacts", Object.keys(rows[0]), rows, 150);
  }
  for (let i = 0; i < SOLICITATIONS; i += 5_000) {
    const rows = Array.from({ length: 5_000 }, (_, j) => ({
      id: newBenchId("sol"),
      tenant_id: tenantId,
      location_id: locationId,
      contact_id: contactIds[(i + j) % CONTACTS],
      channel: "email",
      status: (i + j) % 4 ? "DELIVERED" : "SENT",
      short_link_token: newBenchId("tok"),
      destination_url: "https://example.test/review",
      provider: "bench",
      sent_at: now,
      metadata: '{"source":"bench"}',
      created_at: now,
      updated_at: now,
    }));
    await insertRows(source, "solicitations", Object.keys(rows[0]), rows, 150);
  }
  const seeded = (performance.now() - seedStarted) / 1000;
  const before = await counts(source, tenantId);
  const sums = {
    contacts: await digest(source, "contacts", tenantId),
    solicitations: await digest(source, "solicitations", tenantId),
  };

  const admin = { authorization: session.headers.authorization, "content-type": "application/json" };
  const started = performance.now();
  const res = await fetch(`${url}/admin/tenants/${tenantId}/move`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ shard: 1 }),
  });
  const move = await res.json();
  if (res.status !== 202) throw new Error(`move refused: ${res.status} ${JSON.stringify(move).slice(0, 300)}`);
  // when each state was first seen (polled every 250 ms): where the time goes
  const seen = {};
  const [final] = await waitFor(async () => {
    const m = await (await fetch(`${url}/admin/tenant-moves/${move.id}`, { headers: admin })).json();
    seen[m.state] ??= (performance.now() - started) / 1000;
    return m.state === "succeeded" || m.state === "failed" ? m : null;
  }, 900_000);
  const seconds = (performance.now() - started) / 1000;
  if (!final) throw new Error("the move did not finish within 15 minutes");
  if (final.state !== "succeeded") throw new Error(`move ${final.state}: ${final.error}`);

  const after = await counts(target, tenantId);
  const leftOnSource = await counts(source, tenantId);
  const lost = Object.entries(before).reduce((n, [t, rows]) => n + Math.max(0, rows - (after[t] ?? 0)), 0);
  const sourceRows = Object.values(before).reduce((a, b) => a + b, 0);
  const checksumsMatch =
    sums.contacts === (await digest(target, "contacts", tenantId)) &&
    sums.solicitations === (await digest(target, "solicitations", tenantId));
  const verified = final.tables
    .filter((t) => t.rows)
    .every((t) => t.rows === t.copied && /^[0-9a-f]{64}$/.test(t.checksum));
  const settle = 2 * 10;
  return {
    rps: null,
    p50: null,
    p99: null,
    p50At1: null,
    requests: 1,
    non2xx: 0,
    extra: {
      "seed s": +seeded.toFixed(1),
      "source rows": sourceRows,
      "move s": +seconds.toFixed(1),
      "rows/s": Math.round(sourceRows / seconds),
      "rows/s w/o 2x10 s settle": Math.round(sourceRows / (seconds - settle)),
      "rows lost": lost,
      "checksums match": checksumsMatch && verified,
      "source rows left": Object.values(leftOnSource).reduce((a, b) => a + b, 0),
      phases: Object.entries(seen)
        .map(([state, at], i, all) => `${state} ${((all[i + 1]?.[1] ?? seconds) - at).toFixed(1)}`)
        .join(", "),
      contact_counts:
        (await target.prepare("select total from contact_counts where tenant_id = ?").bind(tenantId).first())?.total ??
        null,
    },
  };
}

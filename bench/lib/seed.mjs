// Bulk seeding straight into D1 (the served Worker's database), for cases that need volume.
import { randomUUID } from "node:crypto";

export const literal = (v) =>
  v === null || v === undefined ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`;

/** Multi-row INSERTs with literal values (no bound-parameter limit), sent 25 statements per batch. */
export async function insertRows(db, table, columns, rows, perStatement = 200) {
  const statements = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const values = rows
      .slice(i, i + perStatement)
      .map((r) => `(${columns.map((c) => literal(r[c])).join(",")})`)
      .join(",");
    statements.push(db.prepare(`insert into ${table} (${columns.join(",")}) values ${values}`));
  }
  for (let i = 0; i < statements.length; i += 25) await db.batch(statements.slice(i, i + 25));
}

export const newBenchId = (prefix) => `${prefix}${randomUUID().replace(/-/g, "")}`;

/** n active locations of the tenant's default brand, with review profiles (half have a Google place id). */
export async function seedLocations(db, tenantId, n) {
  const brand = await db
    .prepare("select id from brands where tenant_id = ? order by created_at limit 1")
    .bind(tenantId)
    .first();
  const now = new Date().toISOString();
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newBenchId("loc"),
    tenant_id: tenantId,
    brand_id: brand.id,
    name: `Bench store ${i}`,
    country: "US",
    timezone: "America/New_York",
    locale: "en-US",
    google_place_id: i % 2 === 0 ? `ChIJbench${i}` : null,
    yelp_url: `https://www.yelp.com/biz/bench-store-${i}`,
    is_active: 1,
    created_at: now,
    updated_at: now,
  }));
  await insertRows(db, "locations", Object.keys(rows[0]), rows);
  return rows;
}

const FIRST = [
  "Olivia",
  "Liam",
  "Emma",
  "Noah",
  "Ava",
  "Elijah",
  "Sophia",
  "Mateo",
  "Isabella",
  "Lucas",
  "Mia",
  "Levi",
  "Amelia",
  "Ezra",
  "Harper",
  "Asher",
  "Evelyn",
  "James",
  "Luna",
  "Leo",
];
const LAST = [
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Garcia",
  "Miller",
  "Davis",
  "Rodriguez",
  "Martinez",
  "Hernandez",
  "Lopez",
  "Gonzalez",
  "Wilson",
  "Anderson",
  "Thomas",
  "Taylor",
  "Moore",
  "Jackson",
  "Lee",
];
const fold = (s) => s.toLowerCase();

/** Tops the tenant up to n contacts (emails unique, names from small lists so searches have matches). */
export async function ensureContacts(db, tenantId, n) {
  const have =
    (await db.prepare("select total from contact_counts where tenant_id = ?").bind(tenantId).first())?.total ?? 0;
  if (have >= n) return have;
  const start = Date.now() - n * 1000;
  const rows = [];
  for (let i = have; i < n; i++) {
    const first = FIRST[i % FIRST.length];
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length];
    const at = new Date(start + i * 1000).toISOString();
    rows.push({
      id: newBenchId("con"),
      tenant_id: tenantId,
      email: `${fold(first)}.${fold(last)}.${i}@bench.example`,
      phone: null,
      first_name: first,
      last_name: last,
      is_suppressed: 0,
      external_ids: "{}",
      source_metadata: "{}",
      name_key: `${fold(first)} ${fold(last)}`,
      name_key_reversed: `${fold(last)} ${fold(first)}`,
      last_activity_at: at,
      created_at: at,
      updated_at: at,
    });
  }
  await insertRows(db, "contacts", Object.keys(rows[0]), rows, 150);
  return n;
}

/** Polls until check() returns a truthy value or the deadline passes; returns [value, seconds]. */
export async function waitFor(check, timeoutMs) {
  const started = Date.now();
  for (;;) {
    const v = await check();
    if (v || Date.now() - started > timeoutMs) return [v, (Date.now() - started) / 1000];
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Waits until the background work a case started has drained (every domain event dispatched, and
 * the event handlers' processed marks unchanged for 3 s), so the next case is not measured beside
 * it. Returns the seconds waited.
 */
export async function waitForQuiet(db, timeoutMs = 180_000) {
  const started = Date.now();
  let last = -1;
  let stableSince = Date.now();
  for (;;) {
    let undispatched, marks;
    try {
      undispatched = (await db.prepare("select count(*) as n from domain_events where dispatched_at is null").first())
        .n;
      marks = (await db.prepare("select count(*) as n from processed_events").first()).n;
    } catch {
      // Miniflare's synchronous binding proxy can give up while workerd works through a backlog
      marks = -2;
    }
    if (marks !== last || undispatched > 0) {
      last = marks;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= 3000) {
      return (stableSince - started) / 1000;
    }
    if (Date.now() - started > timeoutMs) return null;
    await new Promise((r) => setTimeout(r, 250));
  }
}

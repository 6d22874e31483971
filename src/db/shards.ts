import { and, count, eq } from "drizzle-orm";
import type { Env } from "../env";
import { TtlCache } from "../lib/ttl-cache";
import { asShard, type ControlDb, createDb, type ShardDb } from "./client";
import { agencies, shardSizes, tenants, users } from "./schema";
import { controlSessionDb } from "./sessions";

/**
 * The one place that knows where a tenant's rows live (docs/scaling.md). `env.DB` is the control
 * plane (agencies, the tenant directory, users, grants, keys, OAuth/SSO settings); tenant-owned rows
 * live on the tenant's shard, `SHARD_<n>`. With no SHARD_n declared the control database is shard 0
 * (a single-database deployment keeps working unchanged). No code outside src/db/ names these
 * bindings: it gets a `ControlDb` or a `ShardDb` (src/db/client.ts) from the functions below, and
 * test/node/db-bindings.test.ts keeps it so.
 */
export { MAX_SHARDS } from "./max-shards";

import { MAX_SHARDS } from "./max-shards";

const shardBinding = (env: Env, n: number) => (env as unknown as Partial<Record<string, D1Database>>)[`SHARD_${n}`];

/** The shard numbers declared in this environment: SHARD_0..SHARD_{n-1}, consecutive from 0. */
export function shardNumbers(env: Env): number[] {
  const out: number[] = [];
  for (let n = 0; n < MAX_SHARDS && shardBinding(env, n); n++) out.push(n);
  return out.length ? out : [0];
}

/** The control database's binding (for the request's D1 session on it, src/middleware/control-session.ts). */
export const controlD1 = (env: Env): D1Database => env.DB;

export function shardD1(env: Env, shard: number): D1Database {
  const d1 = shardBinding(env, shard) ?? (shard === 0 ? env.DB : undefined);
  if (!d1) throw new Error(`shard ${shard} is not bound (SHARD_${shard} in wrangler.toml)`);
  return d1;
}

/**
 * The control plane, always (background work on a shard is handed that shard's ShardDb; env.DB is
 * never rewritten to mean a shard). Inside a request it reads through the request's control session
 * (src/db/sessions.ts); outside one it is the plain binding.
 */
export const controlDb = (env: Env): ControlDb => controlSessionDb(controlD1(env));

/** A shard's database by number (placement, the move job, cross-shard reads, sweeps); requests get theirs from tenantDb. */
export const shardDb = (env: Env, shard: number): ShardDb => asShard(createDb(shardD1(env, shard)));

/** Every shard with its database, for sweeps and cross-tenant reads (run them in parallel and merge). */
export const allShards = (env: Env): { shard: number; db: ShardDb }[] =>
  shardNumbers(env).map((shard) => ({ shard, db: shardDb(env, shard) }));

/**
 * Control-plane tables: found before the tenant is known (login, API keys, SSO by slug, the
 * directory itself). Every other table with a tenant_id is tenant-owned and lives on the shard.
 */
export const CONTROL_TABLES = new Set([
  "agencies",
  "tenants",
  "users",
  "password_credentials",
  "role_assignments",
  "platform_state",
  "api_keys",
  "user_tokens",
  "sso_configs",
  "saml_requests",
  "saml_assertions",
  "dead_letters",
  "shard_sizes",
  // looked up by host before the tenant is known (white-label, docs/white-label.md)
  "white_label_brands",
  "custom_hostnames",
  "custom_hostname_claims",
  "custom_hostname_claim_guard",
  // an uploaded logo, served by its address before the tenant is known (white-label/logos.ts)
  "brand_logos",
  // the move job's own record (docs/scaling.md, "Moving a tenant")
  "tenant_moves",
  // each sweep's last run (src/background/cron.ts, GET /admin/status)
  "sweep_runs",
  // one row per sign-in (src/modules/identity/sessions.ts, docs/sessions.md)
  "sessions",
]);

/**
 * Control tables that every shard also carries as a mirror, because tenant rows reference them by
 * foreign key (`mirrorTenant`, `mirrorUser`). They are in migrations/tenant/; the other control
 * tables are in migrations/control/ and exist on the control database only (docs/scaling.md).
 */
export const MIRRORED_TABLES = new Set(["agencies", "tenants", "users"]);

/** What a fenced write is told to wait (503 TENANT_MOVING, Retry-After). */
export const MOVE_RETRY_AFTER_SECONDS = 5;

/**
 * A lookup by a key that names no tenant (a review link's slug, a widget's public key) on every shard
 * in parallel; the first non-null answer wins. Callers cache the result per isolate.
 */
export async function findOnShards<T>(env: Env, find: (db: ShardDb) => Promise<T | null>): Promise<T | null> {
  const found = await Promise.all(allShards(env).map((s) => find(s.db)));
  return found.find((v) => v !== null) ?? null;
}

/**
 * tenant -> {shard, movingSince}, per isolate, as long as the tenant refs (10 s): the move job waits
 * that long after fencing and after flipping, so by then every isolate sees the fence and the new shard.
 */
export interface TenantPlacement {
  shard: number;
  /** set while a move fences the tenant's writes (src/db/tenant-fence.ts) */
  movingSince: string | null;
}
const directory = new TtlCache<TenantPlacement>(10_000, 20_000);

/** The tenant's directory placement (cached), or null for an unknown tenant. */
export async function tenantPlacement(env: Env, tenantId: string): Promise<TenantPlacement | null> {
  const cached = directory.get(tenantId);
  if (cached !== undefined) return cached;
  const row = await controlDb(env)
    .select({ shard: tenants.shard, movingSince: tenants.movingSince })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .get();
  if (!row) return null;
  directory.set(tenantId, row);
  return row;
}

/** The tenant's shard from the directory, or null for an unknown tenant. */
export async function tenantShard(env: Env, tenantId: string): Promise<number | null> {
  return (await tenantPlacement(env, tenantId))?.shard ?? null;
}

/** The tenant's shard database. An unknown tenant reads shard 0, where every tenant-filtered query finds nothing. */
export async function tenantDb(env: Env, tenantId: string): Promise<ShardDb> {
  return shardDb(env, (await tenantShard(env, tenantId)) ?? 0);
}

export const forgetTenantShard = (tenantId: string) => directory.delete(tenantId);
export const rememberTenantShard = (tenantId: string, placement: TenantPlacement) => directory.set(tenantId, placement);

/**
 * Placement by size: the shard with the most room under D1's per-database cap, from the sizes last
 * recorded (`shard_sizes`: the daily sweep and every tenant move, src/db/shard-sizes.ts). An
 * agency's tenants stay together on the shard it already uses most, unless that shard has more
 * than `AGENCY_SLACK_BYTES` less room than the roomiest. With no size recorded yet, tenants are
 * counted instead (the fewest wins; the agency's shard unless it holds more than `AGENCY_SLACK`
 * tenants above the emptiest). A declared shard with no record yet (added since the last sweep)
 * counts as empty.
 */
export const SHARD_CAP_BYTES = 10 * 1000 ** 3;
export const AGENCY_SLACK_BYTES = 1000 ** 3;
export const AGENCY_SLACK = 50;

/** The shard with the highest score; the lowest number on a tie. */
const best = (shards: number[], score: (s: number) => number) =>
  shards.reduce((b, s) => (score(s) > score(b) ? s : b), shards[0]!);

export async function placeTenant(env: Env, agencyId: string): Promise<number> {
  const shards = shardNumbers(env);
  if (shards.length === 1) return shards[0]!;
  const db = controlDb(env);
  const [all, ofAgency, sizes] = await db.batch([
    db.select({ shard: tenants.shard, n: count() }).from(tenants).groupBy(tenants.shard),
    db
      .select({ shard: tenants.shard, n: count() })
      .from(tenants)
      .where(eq(tenants.agencyId, agencyId))
      .groupBy(tenants.shard),
    db.select({ shard: shardSizes.shard, bytes: shardSizes.bytes }).from(shardSizes),
  ]);
  const agencyHome = ofAgency
    .filter((r) => shards.includes(r.shard))
    .sort((a, b) => b.n - a.n || a.shard - b.shard)[0]?.shard;
  const bytes = new Map(sizes.filter((r) => shards.includes(r.shard)).map((r) => [r.shard, r.bytes]));
  if (bytes.size) {
    const room = (s: number) => SHARD_CAP_BYTES - (bytes.get(s) ?? 0);
    const roomiest = best(shards, room);
    return agencyHome !== undefined && room(roomiest) - room(agencyHome) <= AGENCY_SLACK_BYTES ? agencyHome : roomiest;
  }
  const load = new Map(shards.map((s) => [s, 0]));
  for (const r of all) if (load.has(r.shard)) load.set(r.shard, r.n);
  const emptiest = best(shards, (s) => -load.get(s)!);
  return agencyHome !== undefined && load.get(agencyHome)! - load.get(emptiest)! <= AGENCY_SLACK
    ? agencyHome
    : emptiest;
}

type TenantRow = typeof tenants.$inferSelect;

/**
 * Tenant rows reference their tenant (and it its agency) by foreign key, so the shard keeps a
 * mirror of both directory rows. The control database stays the source of truth; every directory
 * write calls this after its own commit. Upserts: on a shard that is the control database it is a no-op
 * (so `tenant` must be the directory row as committed: shard 0 is the control database). `onto`: the
 * shard to mirror onto, when it is not the tenant's own (a move's target).
 */
export async function mirrorTenant(env: Env, tenant: TenantRow, onto = tenant.shard) {
  const control = controlDb(env);
  const agency = await control.select().from(agencies).where(eq(agencies.id, tenant.agencyId)).get();
  const shard = shardDb(env, onto);
  const { id: _id, ...rest } = tenant;
  const upsertTenant = shard.insert(tenants).values(tenant).onConflictDoUpdate({ target: tenants.id, set: rest });
  if (agency) await shard.batch([shard.insert(agencies).values(agency).onConflictDoNothing(), upsertTenant]);
  else await upsertTenant;
}

/**
 * A tenant row referencing a user by foreign key (alert_subscriptions.user_id) needs the user on
 * the shard: a stub copy (no home tenant, which may live on another shard), upserted. The control
 * database stays the source of truth; on shard 0 (the control database) this is a no-op.
 */
export async function mirrorUser(env: Env, shard: ShardDb, userId: string) {
  const user = await controlDb(env).select().from(users).where(eq(users.id, userId)).get();
  if (!user) return;
  const stub = { ...user, tenantId: null };
  await shard.insert(users).values(stub).onConflictDoNothing();
}

/** True when the tenant's directory row points at this shard (used by tests and the move job). */
export async function tenantIsOn(env: Env, tenantId: string, shard: number) {
  const row = await controlDb(env)
    .select({ id: tenants.id })
    .from(tenants)
    .where(and(eq(tenants.id, tenantId), eq(tenants.shard, shard)))
    .get();
  return Boolean(row);
}

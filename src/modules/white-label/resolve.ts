import { and, asc, eq, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { ControlDb } from "../../db/client";
import { customHostnames, tenants, type WhiteLabelScope, whiteLabelBrands } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { inJson } from "../../lib/sql";
import { TtlCache } from "../../lib/ttl-cache";

/**
 * The leaf every public page, email and link builder uses to find a tenant's white label: the
 * effective brand (tenant override > agency brand > default, field by field) and the public base
 * URL (the tenant's active custom hostname, else its agency's, else PUBLIC_BASE_URL). Imports only
 * src/db and src/lib, so any module may use it. Every `db` here must be the control database. Cached per isolate (CACHE_TTL_MS); writes in
 * this module clear this isolate's caches, other isolates see a change within CACHE_TTL_MS.
 */

export interface EffectiveBrand {
  name: string;
  /** https only (validated on write, checked again when rendered) */
  logoUrl: string | null;
  /** #rrggbb, or null: the page's own colours */
  primaryColor: string | null;
  accentColor: string | null;
  supportEmail: string | null;
  /** where the brand came from: a tenant override, the agency's brand, or the platform default */
  source: "tenant" | "agency" | "default";
}

export const DEFAULT_BRAND: EffectiveBrand = {
  name: "Reputation Operations",
  logoUrl: null,
  primaryColor: null,
  accentColor: null,
  supportEmail: null,
  source: "default",
};

export interface TenantWhiteLabel {
  tenantId: string;
  agencyId: string;
  brand: EffectiveBrand;
  /** the active custom hostname links use, or null (PUBLIC_BASE_URL) */
  hostname: string | null;
}

/** A request's custom hostname and whom it belongs to. */
export interface HostOwner {
  hostname: string;
  scope: WhiteLabelScope;
  scopeId: string;
  agencyId: string;
}

export const CACHE_TTL_MS = 60_000;
const tenantCache = new TtlCache<TenantWhiteLabel | null>(CACHE_TTL_MS, 10_000);
const agencyCache = new TtlCache<EffectiveBrand>(CACHE_TTL_MS, 2_000);
const hostCache = new TtlCache<HostOwner | null>(CACHE_TTL_MS, 10_000);

/** Called after every white-label write (and by tests); other isolates wait out the TTL. */
export function forgetWhiteLabels() {
  tenantCache.clear();
  agencyCache.clear();
  hostCache.clear();
}

type BrandFields = Pick<
  typeof whiteLabelBrands.$inferSelect,
  "name" | "logoUrl" | "primaryColor" | "accentColor" | "supportEmail"
>;
const FIELDS = ["name", "logoUrl", "primaryColor", "accentColor", "supportEmail"] as const;

/** Field by field: the tenant's non-null value, else the agency's, else the default. */
export function mergeBrands(tenant: Partial<BrandFields> | null, agency: Partial<BrandFields> | null): EffectiveBrand {
  const out: EffectiveBrand = { ...DEFAULT_BRAND };
  for (const f of FIELDS) {
    const v = tenant?.[f] ?? agency?.[f] ?? null;
    if (v !== null) out[f] = v;
  }
  const has = (b: Partial<BrandFields> | null) => !!b && FIELDS.some((f) => b[f] != null);
  out.source = has(tenant) ? "tenant" : has(agency) ? "agency" : "default";
  return out;
}

const tb = alias(whiteLabelBrands, "tb");
const ab = alias(whiteLabelBrands, "ab");
// aliased expressions: D1 returns rows keyed by column name, so the two joined brands must not share names
const pick = (prefix: string, t: typeof tb | typeof ab) =>
  Object.fromEntries(
    (["id", ...FIELDS] as const).map((f) => {
      const key = `${prefix}${f[0]!.toUpperCase()}${f.slice(1)}`;
      return [key, sql<string | null>`${t[f]}`.as(`${prefix}_${f}`)];
    }),
  );
const fieldsOf = (row: Record<string, unknown>, prefix: string): BrandFields | null =>
  row[`${prefix}Id`] == null
    ? null
    : (Object.fromEntries(
        FIELDS.map((f) => [f, row[`${prefix}${f[0]!.toUpperCase()}${f.slice(1)}`] ?? null]),
      ) as BrandFields);

/**
 * The one rule for "this hostname serves traffic and links use it": Cloudflare reports the hostname
 * and its certificate active, and the claimant proved ownership with our TXT record (hostnames.ts).
 */
export const hostnameInUse = () =>
  and(
    eq(customHostnames.status, "active"),
    eq(customHostnames.sslStatus, "active"),
    isNotNull(customHostnames.verifiedAt),
  )!;
export const isHostnameInUse = (r: { status: string; sslStatus: string | null; verifiedAt: string | null }) =>
  r.status === "active" && r.sslStatus === "active" && r.verifiedAt !== null;

/** Active hostnames of a scope, oldest first: the first one of an owner is the one links use. */
const activeHosts = (db: ControlDb, scope: WhiteLabelScope, scopeIdIn: SQL) =>
  db
    .select({ scopeId: customHostnames.scopeId, hostname: customHostnames.hostname })
    .from(customHostnames)
    .where(and(eq(customHostnames.scope, scope), scopeIdIn, hostnameInUse()))
    .orderBy(asc(customHostnames.createdAt), asc(customHostnames.id));

/**
 * The three reads that decide the white labels of the tenants whose id matches `tenantIdIn`
 * (a condition on a tenant-id column, e.g. inJson(column, ids) or `column in (subquery)`), for a
 * caller to put in its own db.batch; `assembleWhiteLabels` turns their results into the map.
 */
export function whiteLabelStatements(db: ControlDb, tenantIdIn: (column: SQLiteColumn) => SQL) {
  const agencyIds = db.select({ id: tenants.agencyId }).from(tenants).where(tenantIdIn(tenants.id));
  return [
    db
      .select({ tenantId: tenants.id, agencyId: tenants.agencyId, ...pick("t", tb), ...pick("a", ab) } as never)
      .from(tenants)
      .leftJoin(tb, and(eq(tb.scope, "tenant"), eq(tb.scopeId, tenants.id)))
      .leftJoin(ab, and(eq(ab.scope, "agency"), eq(ab.scopeId, tenants.agencyId)))
      .where(tenantIdIn(tenants.id)),
    activeHosts(db, "tenant", tenantIdIn(customHostnames.scopeId)),
    activeHosts(db, "agency", inArray(customHostnames.scopeId, agencyIds)),
  ] as const;
}

type Results = {
  [K in keyof ReturnType<typeof whiteLabelStatements>]: Awaited<ReturnType<typeof whiteLabelStatements>[K]>;
};

/** The white labels from whiteLabelStatements' results; they are remembered in the isolate cache too. */
export function assembleWhiteLabels([rows, tenantHosts, agencyHosts]: Results | readonly unknown[]): Map<
  string,
  TenantWhiteLabel
> {
  const first = (hosts: { scopeId: string; hostname: string }[]) => {
    const m = new Map<string, string>();
    for (const h of hosts) if (!m.has(h.scopeId)) m.set(h.scopeId, h.hostname);
    return m;
  };
  const byTenant = first(tenantHosts as { scopeId: string; hostname: string }[]);
  const byAgency = first(agencyHosts as { scopeId: string; hostname: string }[]);
  const out = new Map<string, TenantWhiteLabel>();
  for (const r of rows as Record<string, string>[]) {
    const wl = {
      tenantId: r.tenantId!,
      agencyId: r.agencyId!,
      brand: mergeBrands(fieldsOf(r, "t"), fieldsOf(r, "a")),
      hostname: byTenant.get(r.tenantId!) ?? byAgency.get(r.agencyId!) ?? null,
    };
    out.set(wl.tenantId, wl);
    tenantCache.set(wl.tenantId, wl);
  }
  return out;
}

async function loadTenants(db: ControlDb, ids: string[]): Promise<Map<string, TenantWhiteLabel>> {
  const [a, b, c] = whiteLabelStatements(db, (column) => inJson(column, ids));
  return assembleWhiteLabels(await db.batch([a, b, c]));
}

/** The white labels of many tenants (a send batch): cache hits, then one D1 batch for the rest. Unknown tenants are absent. */
export async function tenantWhiteLabels(db: ControlDb, tenantIds: string[]): Promise<Map<string, TenantWhiteLabel>> {
  const out = new Map<string, TenantWhiteLabel>();
  const missing: string[] = [];
  for (const id of new Set(tenantIds)) {
    const hit = tenantCache.get(id);
    if (hit === undefined) missing.push(id);
    else if (hit) out.set(id, hit);
  }
  if (missing.length) {
    const loaded = await loadTenants(db, missing);
    for (const id of missing) {
      const v = loaded.get(id) ?? null;
      tenantCache.set(id, v);
      if (v) out.set(id, v);
    }
  }
  return out;
}

/** One tenant's white label (null: no such tenant). A cache hit costs no I/O. */
export async function tenantWhiteLabel(db: ControlDb, tenantId: string): Promise<TenantWhiteLabel | null> {
  const hit = tenantCache.get(tenantId);
  if (hit !== undefined) return hit;
  return (await tenantWhiteLabels(db, [tenantId])).get(tenantId) ?? null;
}

/** The brand of an agency (its own brand or the default). */
export async function agencyBrand(db: ControlDb, agencyId: string): Promise<EffectiveBrand> {
  const hit = agencyCache.get(agencyId);
  if (hit) return hit;
  const row = await db
    .select()
    .from(whiteLabelBrands)
    .where(and(eq(whiteLabelBrands.scope, "agency"), eq(whiteLabelBrands.scopeId, agencyId)))
    .get();
  const brand = mergeBrands(null, row ?? null);
  agencyCache.set(agencyId, brand);
  return brand;
}

/** The links' origin for a tenant: https://{active custom hostname}, else PUBLIC_BASE_URL. */
export const publicBaseUrlOf = (env: Pick<Env, "PUBLIC_BASE_URL">, wl: TenantWhiteLabel | null | undefined) =>
  wl?.hostname ? `https://${wl.hostname}` : env.PUBLIC_BASE_URL.replace(/\/+$/, "");

/**
 * The public base URL of a tenant's links (see publicBaseUrlOf). Reads the control database itself:
 * callers hold the tenant's shard, where white-label tables do not exist (docs/scaling.md).
 */
export const tenantPublicBaseUrl = async (env: Env, tenantId: string) =>
  publicBaseUrlOf(env, await tenantWhiteLabel(controlDb(env), tenantId));

/**
 * Whom an active custom hostname belongs to (null: not one of ours, or not active). Misses are
 * cached too, so a burst on one unknown host reads D1 once per isolate per CACHE_TTL_MS.
 */
export async function customHostOwner(db: ControlDb, hostname: string): Promise<HostOwner | null> {
  const hit = hostCache.get(hostname);
  if (hit !== undefined) return hit;
  const row = await db
    .select({
      hostname: customHostnames.hostname,
      scope: customHostnames.scope,
      scopeId: customHostnames.scopeId,
      agencyId: customHostnames.agencyId,
    })
    .from(customHostnames)
    .where(and(eq(customHostnames.hostname, hostname), hostnameInUse()))
    .get();
  hostCache.set(hostname, row ?? null);
  return row ?? null;
}

/** Pages for a tenant are served on the platform's host, or on a custom hostname of that tenant or of its agency. */
export const hostServesTenant = (
  host: HostOwner | null | undefined,
  wl: Pick<TenantWhiteLabel, "tenantId" | "agencyId">,
) => !host || (host.scope === "tenant" ? host.scopeId === wl.tenantId : host.agencyId === wl.agencyId);

/** The brand a page without a tenant (OAuth consent, a dead link) shows on this host. */
export async function hostBrand(db: ControlDb, host: HostOwner | null | undefined): Promise<EffectiveBrand> {
  if (!host) return DEFAULT_BRAND;
  if (host.scope === "agency") return agencyBrand(db, host.agencyId);
  return (await tenantWhiteLabel(db, host.scopeId))?.brand ?? DEFAULT_BRAND;
}

/** An agency's first active custom hostname (the one its links use), or null. */
export async function agencyHostname(db: ControlDb, agencyId: string): Promise<string | null> {
  const [first] = await activeHosts(db, "agency", eq(customHostnames.scopeId, agencyId)).limit(1);
  return first?.hostname ?? null;
}

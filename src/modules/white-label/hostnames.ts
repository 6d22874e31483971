import { and, asc, count, eq, isNull, lt, ne, or } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { customHostnames } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commitControl } from "../../lib/commit";
import { controlDb } from "../../db/shards";
import type { PlatformContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { ApiError, conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { customHostnameProvider } from "../../providers/hostnames";
import { HostnameProviderError, type CustomHostnameProvider, type ProvidedHostname } from "../../providers/hostnames/types";
import { forgetWhiteLabels } from "./resolve";
import { toCustomHostname } from "./schemas";
import type { Owner } from "./service";

/** At most this many hostnames per agency or tenant. */
export const MAX_HOSTNAMES_PER_OWNER = 10;

type Row = typeof customHostnames.$inferSelect;

const view = (env: Env, r: Row) => toCustomHostname(r, env.CUSTOM_HOSTNAME_CNAME_TARGET ?? null);

function providerOf(env: Env): CustomHostnameProvider {
  const p = customHostnameProvider(env);
  if (!p) throw conflict("Custom hostnames are not configured on this platform (CLOUDFLARE_API_TOKEN and CLOUDFLARE_ZONE_ID)");
  return p;
}

/** A provider failure as the API's error: a refused hostname is 409, anything else 502. */
function upstream(e: unknown): never {
  if (e instanceof HostnameProviderError) {
    if (e.rejected) throw conflict(`The hostname was refused: ${e.message}`);
    throw new ApiError("UPSTREAM_ERROR", `Custom hostname provider failed: ${e.message}`);
  }
  throw e;
}

const fromProvider = (p: ProvidedHostname, now: string, before?: Row) => ({
  providerId: p.id,
  status: p.status,
  sslStatus: p.sslStatus,
  verification: { ownership: p.ownership, ssl: p.ssl, errors: p.errors },
  activatedAt: before?.activatedAt ?? (p.status === "active" && p.sslStatus === "active" ? now : null),
  lastCheckedAt: now,
  updatedAt: now,
});

const ownedBy = (owner: Owner) => and(eq(customHostnames.scope, owner.scope), eq(customHostnames.scopeId, owner.scopeId));

export async function listHostnames(db: ControlDb, env: Env, owner: Owner) {
  const rows = await db.select().from(customHostnames).where(ownedBy(owner)).orderBy(asc(customHostnames.createdAt), asc(customHostnames.id));
  return { data: rows.map((r) => view(env, r)) };
}

async function findRow(db: ControlDb, owner: Owner, id: string) {
  const row = await db.select().from(customHostnames).where(and(eq(customHostnames.id, id), ownedBy(owner))).get();
  if (!row) throw notFound("Custom hostname");
  return row;
}

export const getHostname = async (db: ControlDb, env: Env, owner: Owner, id: string) => view(env, await findRow(db, owner, id));

/**
 * Registers the hostname with Cloudflare, then stores it with the DNS records the customer must
 * create. The platform's own host, a hostname already registered (by anyone), or over
 * MAX_HOSTNAMES_PER_OWNER: 409. If the insert loses a race, the provider's record is removed again.
 */
export async function createHostname(ctx: PlatformContext, owner: Owner, hostname: string) {
  if (hostname === new URL(ctx.env.PUBLIC_BASE_URL).hostname.toLowerCase()) throw conflict("That is the platform's own hostname");
  const control = controlDb(ctx.env);
  const [taken, mine] = await control.batch([
    control.select({ id: customHostnames.id }).from(customHostnames).where(eq(customHostnames.hostname, hostname)),
    control.select({ n: count() }).from(customHostnames).where(ownedBy(owner)),
  ]);
  if (taken.length) throw conflict(`The hostname ${hostname} is already registered`);
  if (mine[0]!.n >= MAX_HOSTNAMES_PER_OWNER) throw conflict(`At most ${MAX_HOSTNAMES_PER_OWNER} custom hostnames per ${owner.scope}`);
  const provider = providerOf(ctx.env);
  const provided = await provider.create(hostname).catch(upstream);
  const now = nowIso();
  const row: Row = { id: newId(), scope: owner.scope, scopeId: owner.scopeId, agencyId: owner.agencyId, hostname, createdAt: now, ...fromProvider(provided, now) };
  try {
    await commitControl(ctx, (c) => [c.insert(customHostnames).values(row)], [
      auditStatement(ctx, { tenantId: owner.tenantId, action: "custom_hostname.created", resourceType: "custom_hostname", resourceId: row.id, nextState: row }),
    ]);
  } catch (e) {
    await provider.delete(provided.id).catch(() => undefined);
    if (isUniqueViolation(e)) throw conflict(`The hostname ${hostname} is already registered`);
    throw e;
  }
  forgetWhiteLabels();
  return view(ctx.env, row);
}

/** Writes what the provider says now; a status change is audited (system actor in the sweep). */
async function applyStatus(ctx: PlatformContext, owner: Pick<Owner, "tenantId">, before: Row, p: ProvidedHostname | null) {
  const now = nowIso();
  // the provider no longer knows it (deleted in the Cloudflare dashboard): keep the row, inactive
  const next = p ? fromProvider(p, now, before) : { status: "deleted", sslStatus: null, lastCheckedAt: now, updatedAt: now };
  const after = { ...before, ...next };
  const changed = after.status !== before.status || after.sslStatus !== before.sslStatus;
  await commitControl(ctx, (c) => [c.update(customHostnames).set(next).where(eq(customHostnames.id, before.id))], [
    ...(changed
      ? [auditStatement(ctx, {
          tenantId: owner.tenantId, action: "custom_hostname.status_changed", resourceType: "custom_hostname", resourceId: before.id,
          previousState: { status: before.status, sslStatus: before.sslStatus }, nextState: { status: after.status, sslStatus: after.sslStatus },
        })]
      : []),
  ]);
  if (changed) forgetWhiteLabels();
  return after;
}

/** Asks Cloudflare for the hostname's current status (the customer just created the DNS records). */
export async function refreshHostname(ctx: PlatformContext, owner: Owner, id: string) {
  const before = await findRow(controlDb(ctx.env), owner, id);
  const provider = providerOf(ctx.env);
  const p = before.providerId ? await provider.get(before.providerId).catch(upstream) : null;
  return view(ctx.env, await applyStatus(ctx, owner, before, p));
}

/** Removes it from Cloudflare (already gone there is fine) and here; links stop using it at once in this isolate, within a minute elsewhere. */
export async function deleteHostname(ctx: PlatformContext, owner: Owner, id: string) {
  const before = await findRow(controlDb(ctx.env), owner, id);
  if (before.providerId) await providerOf(ctx.env).delete(before.providerId).catch(upstream);
  await commitControl(ctx, (c) => [c.delete(customHostnames).where(eq(customHostnames.id, id))], [
    auditStatement(ctx, { tenantId: owner.tenantId, action: "custom_hostname.deleted", resourceType: "custom_hostname", resourceId: id, previousState: before }),
  ]);
  forgetWhiteLabels();
}

export const SWEEP_BATCH = 25;
/** Active hostnames are re-checked about daily (a customer may move the CNAME away). */
export const ACTIVE_RECHECK_MS = 24 * 3600_000;

/**
 * The 5-minute sweep: asks Cloudflare about up to SWEEP_BATCH hostnames, least recently checked
 * first: every one not yet active, and active ones not checked for a day. Provider errors leave a
 * hostname for the next run.
 */
export async function sweepHostnameStatus(env: Env, db: ControlDb, now: Date): Promise<{ checked: number }> {
  const provider = customHostnameProvider(env);
  if (!provider) return { checked: 0 };
  const stale = new Date(now.getTime() - ACTIVE_RECHECK_MS).toISOString();
  const rows = await db
    .select()
    .from(customHostnames)
    .where(
      and(
        or(ne(customHostnames.status, "active"), isNull(customHostnames.sslStatus), ne(customHostnames.sslStatus, "active"), isNull(customHostnames.lastCheckedAt), lt(customHostnames.lastCheckedAt, stale)),
        ne(customHostnames.status, "deleted"),
      ),
    )
    .orderBy(asc(customHostnames.lastCheckedAt), asc(customHostnames.id))
    .limit(SWEEP_BATCH);
  let checked = 0;
  for (const row of rows) {
    try {
      const p = row.providerId ? await provider.get(row.providerId) : null;
      const tenantId = row.scope === "tenant" ? row.scopeId : null;
      // a tenant's hostname is audited on the tenant's shard
      const ctx: PlatformContext = { db: await auditDbFor(env, tenantId), control: db, env, actor: { type: "system", name: "custom-hostname-sweep" }, meta: { ip: null, userAgent: null, requestId: null }, defer: () => undefined };
      await applyStatus(ctx, { tenantId }, row, p);
      checked++;
    } catch (e) {
      console.warn(JSON.stringify({ level: "warn", message: "custom hostname check failed", hostnameId: row.id, error: String((e as Error).message ?? e) }));
    }
  }
  return { checked };
}

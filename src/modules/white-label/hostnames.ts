import { and, asc, count, eq, isNull, lt, ne, or } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { customHostnames } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { auditDbFor, commitControl } from "../../lib/commit";
import type { PlatformContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { ApiError, conflict, notFound } from "../../lib/errors";
import { canonicalHostname } from "../../lib/host-guard";
import { newId } from "../../lib/ids";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { customHostnameProvider } from "../../providers/hostnames";
import {
  type CustomHostnameProvider,
  HostnameProviderError,
  type ProvidedHostname,
} from "../../providers/hostnames/types";
import { checkOwnership, claimExpired, newOwnershipToken, type OwnershipCheck } from "./ownership";
import { forgetWhiteLabels, isHostnameInUse } from "./resolve";
import { toCustomHostname } from "./schemas";
import type { Owner } from "./service";

/** At most this many hostnames per agency or tenant. */
export const MAX_HOSTNAMES_PER_OWNER = 10;

type Row = typeof customHostnames.$inferSelect;

const view = (env: Env, r: Row) => toCustomHostname(r, env.CUSTOM_HOSTNAME_CNAME_TARGET ?? null);

function providerOf(env: Env): CustomHostnameProvider {
  const p = customHostnameProvider(env);
  if (!p)
    throw conflict(
      "Custom hostnames are not configured on this platform (CLOUDFLARE_API_TOKEN and CLOUDFLARE_ZONE_ID)",
    );
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

/** What the provider says, with our ownership check (`verifiedAt`: kept once set, else set by `owned`). */
function fromProvider(
  p: ProvidedHostname,
  now: string,
  before: Pick<Row, "activatedAt" | "verifiedAt"> | undefined,
  owned?: OwnershipCheck,
) {
  const verifiedAt = before?.verifiedAt ?? (owned?.verified ? now : null);
  const errors = [
    ...(owned && !owned.verified && !verifiedAt ? [`Ownership not verified: ${owned.reason}`] : []),
    ...p.errors,
  ];
  const next = {
    providerId: p.id,
    status: p.status,
    sslStatus: p.sslStatus,
    verification: { ownership: p.ownership, ssl: p.ssl, errors },
    verifiedAt,
    lastCheckedAt: now,
    updatedAt: now,
  };
  return { ...next, activatedAt: before?.activatedAt ?? (isHostnameInUse(next) ? now : null) };
}

const ownedBy = (owner: Owner) =>
  and(eq(customHostnames.scope, owner.scope), eq(customHostnames.scopeId, owner.scopeId));

export async function listHostnames(db: ControlDb, env: Env, owner: Owner) {
  const rows = await db
    .select()
    .from(customHostnames)
    .where(ownedBy(owner))
    .orderBy(asc(customHostnames.createdAt), asc(customHostnames.id));
  return { data: rows.map((r) => view(env, r)) };
}

async function findRow(db: ControlDb, owner: Owner, id: string) {
  const row = await db
    .select()
    .from(customHostnames)
    .where(and(eq(customHostnames.id, id), ownedBy(owner)))
    .get();
  if (!row) throw notFound("Custom hostname");
  return row;
}

export const getHostname = async (db: ControlDb, env: Env, owner: Owner, id: string) =>
  view(env, await findRow(db, owner, id));

/**
 * Registers the hostname with Cloudflare, then stores it with the DNS records the customer must
 * create. The platform's own host, a hostname already registered (by anyone), or over
 * MAX_HOSTNAMES_PER_OWNER: 409. If the insert loses a race, the provider's record is removed again.
 */
export async function createHostname(ctx: PlatformContext, owner: Owner, hostname: string) {
  if (hostname === canonicalHostname(new URL(ctx.env.PUBLIC_BASE_URL).hostname))
    throw conflict("That is the platform's own hostname");
  const control = controlDb(ctx.env);
  const [taken, mine] = await control.batch([
    control.select().from(customHostnames).where(eq(customHostnames.hostname, hostname)),
    control.select({ n: count() }).from(customHostnames).where(ownedBy(owner)),
  ]);
  // an unverified claim past its 7 days holds nothing, even before the sweep removed it
  if (taken[0] && claimExpired(taken[0], new Date())) await expireClaim(ctx.env, taken[0]);
  else if (taken.length) throw conflict(`The hostname ${hostname} is already registered`);
  if (mine[0]!.n >= MAX_HOSTNAMES_PER_OWNER)
    throw conflict(`At most ${MAX_HOSTNAMES_PER_OWNER} custom hostnames per ${owner.scope}`);
  const provider = providerOf(ctx.env);
  const provided = await provider.create(hostname).catch(upstream);
  const now = nowIso();
  // a fresh token per claim: a TXT record left over from an earlier claim proves nothing
  const row: Row = {
    id: newId(),
    scope: owner.scope,
    scopeId: owner.scopeId,
    agencyId: owner.agencyId,
    hostname,
    ownershipToken: newOwnershipToken(),
    createdAt: now,
    ...fromProvider(provided, now, undefined),
  };
  try {
    await commitControl(ctx, (c) => [c.insert(customHostnames).values(row)], [
      auditStatement(ctx, {
        tenantId: owner.tenantId,
        action: "custom_hostname.created",
        resourceType: "custom_hostname",
        resourceId: row.id,
        nextState: row,
      }),
    ]);
  } catch (e) {
    await provider.delete(provided.id).catch(() => undefined);
    if (isUniqueViolation(e)) throw conflict(`The hostname ${hostname} is already registered`);
    throw e;
  }
  forgetWhiteLabels();
  return view(ctx.env, row);
}

/** Writes what the provider and our ownership check say now; a change is audited (system actor in the sweep). */
async function applyStatus(
  ctx: PlatformContext,
  owner: Pick<Owner, "tenantId">,
  before: Row,
  p: ProvidedHostname | null,
  owned?: OwnershipCheck,
) {
  const now = nowIso();
  // the provider no longer knows it (deleted in the Cloudflare dashboard): keep the row, inactive
  const next = p
    ? fromProvider(p, now, before, owned)
    : { status: "deleted", sslStatus: null, lastCheckedAt: now, updatedAt: now };
  const after = { ...before, ...next };
  const changed = after.status !== before.status || after.sslStatus !== before.sslStatus;
  const verified = before.verifiedAt === null && after.verifiedAt !== null;
  const audit = (action: string, previousState: object, nextState: object) =>
    auditStatement(ctx, {
      tenantId: owner.tenantId,
      action,
      resourceType: "custom_hostname",
      resourceId: before.id,
      previousState,
      nextState,
    });
  await commitControl(ctx, (c) => [c.update(customHostnames).set(next).where(eq(customHostnames.id, before.id))], [
    ...(verified ? [audit("custom_hostname.verified", { verifiedAt: null }, { verifiedAt: after.verifiedAt })] : []),
    ...(changed
      ? [
          audit(
            "custom_hostname.status_changed",
            { status: before.status, sslStatus: before.sslStatus },
            { status: after.status, sslStatus: after.sslStatus },
          ),
        ]
      : []),
  ]);
  if (changed || verified) forgetWhiteLabels();
  return after;
}

/** Our TXT record for an unverified claim (a verified one is not asked again), then Cloudflare. */
async function recheck(
  ctx: PlatformContext,
  owner: Pick<Owner, "tenantId">,
  before: Row,
  provider: CustomHostnameProvider,
) {
  const owned = before.verifiedAt ? undefined : await checkOwnership(ctx.env, before);
  const p = before.providerId ? await provider.get(before.providerId) : null;
  return applyStatus(ctx, owner, before, p, owned);
}

/** Checks ownership and asks Cloudflare for the hostname's current status (the customer just created the DNS records). */
export async function refreshHostname(ctx: PlatformContext, owner: Owner, id: string) {
  const before = await findRow(controlDb(ctx.env), owner, id);
  return view(ctx.env, await recheck(ctx, owner, before, providerOf(ctx.env)).catch(upstream));
}

/** Removes an unverified claim past its 7 days, at Cloudflare (already gone is fine) and here, audited. */
async function expireClaim(env: Env, row: Row) {
  const tenantId = row.scope === "tenant" ? row.scopeId : null;
  const ctx = await systemContext(env, tenantId);
  if (row.providerId) await customHostnameProvider(env)?.delete(row.providerId);
  await commitControl(
    ctx,
    (c) => [c.delete(customHostnames).where(and(eq(customHostnames.id, row.id), isNull(customHostnames.verifiedAt)))],
    [
      auditStatement(ctx, {
        tenantId,
        action: "custom_hostname.expired",
        resourceType: "custom_hostname",
        resourceId: row.id,
        previousState: row,
      }),
    ],
  );
  forgetWhiteLabels();
}

// a tenant's hostname is audited on the tenant's shard
const systemContext = async (env: Env, tenantId: string | null): Promise<PlatformContext> => ({
  db: await auditDbFor(env, tenantId),
  control: controlDb(env),
  env,
  actor: { type: "system", name: "custom-hostname-sweep" },
  meta: { ip: null, userAgent: null, requestId: null },
  defer: () => undefined,
});

/** Removes it from Cloudflare (already gone there is fine) and here; links stop using it at once in this isolate, within a minute elsewhere. */
export async function deleteHostname(ctx: PlatformContext, owner: Owner, id: string) {
  const before = await findRow(controlDb(ctx.env), owner, id);
  if (before.providerId) await providerOf(ctx.env).delete(before.providerId).catch(upstream);
  await commitControl(ctx, (c) => [c.delete(customHostnames).where(eq(customHostnames.id, id))], [
    auditStatement(ctx, {
      tenantId: owner.tenantId,
      action: "custom_hostname.deleted",
      resourceType: "custom_hostname",
      resourceId: id,
      previousState: before,
    }),
  ]);
  forgetWhiteLabels();
}

export const SWEEP_BATCH = 25;
/** Active hostnames are re-checked about daily (a customer may move the CNAME away). */
export const ACTIVE_RECHECK_MS = 24 * 3600_000;

/**
 * The 5-minute sweep: up to SWEEP_BATCH hostnames, least recently checked first: every one not yet
 * active or not verified, and active ones not checked for a day. An unverified claim past its 7 days
 * is removed; the others get our ownership check and Cloudflare's status. Provider errors leave a
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
        or(
          ne(customHostnames.status, "active"),
          isNull(customHostnames.sslStatus),
          ne(customHostnames.sslStatus, "active"),
          isNull(customHostnames.verifiedAt),
          isNull(customHostnames.lastCheckedAt),
          lt(customHostnames.lastCheckedAt, stale),
        ),
        ne(customHostnames.status, "deleted"),
      ),
    )
    .orderBy(asc(customHostnames.lastCheckedAt), asc(customHostnames.id))
    .limit(SWEEP_BATCH);
  let checked = 0;
  for (const row of rows) {
    try {
      const tenantId = row.scope === "tenant" ? row.scopeId : null;
      if (claimExpired(row, now)) await expireClaim(env, row);
      else await recheck(await systemContext(env, tenantId), { tenantId }, row, provider);
      checked++;
    } catch (e) {
      log.warn("custom hostname check failed", { hostnameId: row.id, error: String((e as Error).message ?? e) });
    }
  }
  return { checked };
}

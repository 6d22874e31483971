import { and, asc, eq, isNotNull, isNull, lt, ne, or, type SQL, sql } from "drizzle-orm";
import type { ControlDb } from "../../db/client";
import { customHostnameClaimGuard, customHostnameClaims, customHostnames } from "../../db/schema";
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
import {
  CLAIM_TTL_MS,
  checkOwnership,
  claimExpired,
  claimExpiresAt,
  MAX_UNVERIFIED_PER_OWNER,
  newOwnershipToken,
  type OwnershipCheck,
  ownershipRecord,
  PROVEN_BY_ANOTHER,
} from "./ownership";
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

const isOwners = (owner: Owner) => (r: Pick<Row, "scope" | "scopeId">) =>
  r.scope === owner.scope && r.scopeId === owner.scopeId;
const claimOf = (owner: Pick<Owner, "scope" | "scopeId">, hostname: string) =>
  and(
    eq(customHostnameClaims.scope, owner.scope),
    eq(customHostnameClaims.scopeId, owner.scopeId),
    eq(customHostnameClaims.hostname, hostname),
  );

const UNVERIFIED_CAP = (owner: Owner) =>
  `At most ${MAX_UNVERIFIED_PER_OWNER} unverified custom hostnames per ${owner.scope}: prove ownership of one (its TXT record) or remove one`;
const TOTAL_CAP = (owner: Owner) => `At most ${MAX_HOSTNAMES_PER_OWNER} custom hostnames per ${owner.scope}`;

/**
 * The first statement of a claim's batch: it fails the batch (custom_hostname_claim_guard's CHECKs) when
 * the owner already holds MAX_UNVERIFIED_PER_OWNER live unverified claims (unless this one is verified)
 * or MAX_HOSTNAMES_PER_OWNER hostnames. One D1 batch is one transaction: concurrent claims cannot all pass.
 */
function claimGuard(c: ControlDb, owner: Owner, now: Date, verified: boolean) {
  const lapsedBefore = new Date(now.getTime() - CLAIM_TTL_MS).toISOString();
  const mine = sql`${customHostnames.scope} = ${owner.scope} and ${customHostnames.scopeId} = ${owner.scopeId}`;
  const unverified = sql`(select count(*) from ${customHostnames} where ${mine} and ${customHostnames.verifiedAt} is null
    and coalesce(${customHostnames.claimedAt}, ${customHostnames.createdAt}) > ${lapsedBefore})`;
  const total = sql`(select count(*) from ${customHostnames} where ${mine})`;
  return c.insert(customHostnameClaimGuard).select(
    sql`select 'unverified' where ${verified ? sql`0` : sql`${unverified} >= ${MAX_UNVERIFIED_PER_OWNER}`}
          union all select 'total' where ${total} >= ${MAX_HOSTNAMES_PER_OWNER}`,
  );
}

/** Which cap a failed claim batch ran into (claimGuard), if any. */
function capExceeded(e: unknown): "unverified" | "total" | null {
  for (let err = e as { message?: string; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    const m = String(err.message);
    if (m.includes("unverified_hostname_claims_exceeded")) return "unverified";
    if (m.includes("custom_hostnames_exceeded")) return "total";
  }
  return null;
}

/** Another claim of the same name that also meets `condition`, if any (the hostname index finds them). */
const otherClaimOf = (db: ControlDb, row: Pick<Row, "id" | "hostname">, condition: SQL) =>
  db
    .select({ id: customHostnames.id })
    .from(customHostnames)
    .where(and(eq(customHostnames.hostname, row.hostname), ne(customHostnames.id, row.id), condition))
    .get();

/** True when another claim of the name still reads this Cloudflare record (the claims of one name share it). */
const providerRecordShared = async (db: ControlDb, row: Pick<Row, "id" | "hostname" | "providerId">) =>
  !!row.providerId && !!(await otherClaimOf(db, row, eq(customHostnames.providerId, row.providerId)));

/** True when a claim of the name other than this one proved ownership (it holds the name). */
const provenByAnother = async (db: ControlDb, row: Pick<Row, "id" | "hostname">) =>
  !!(await otherClaimOf(db, row, isNotNull(customHostnames.verifiedAt)));

/**
 * Claims a hostname for an owner (docs/white-label.md, "Ownership"). A name is refused (409) when it is
 * the platform's own, when some claim of it proved ownership, when the owner claimed it already, or over
 * the owner's caps (MAX_UNVERIFIED_PER_OWNER unverified, MAX_HOSTNAMES_PER_OWNER in all). Another owner's
 * unverified claim blocks nothing: the claims of one name share its Cloudflare record, and the first to
 * publish its TXT record wins. The owner's first claim of the name starts its 7 days and fixes its token
 * (custom_hostname_claims), so deleting and claiming again changes neither; once those days are over, a new
 * claim is accepted only if the TXT record is already published (it is then verified at once).
 */
export async function createHostname(ctx: PlatformContext, owner: Owner, hostname: string) {
  if (hostname === canonicalHostname(new URL(ctx.env.PUBLIC_BASE_URL).hostname))
    throw conflict("That is the platform's own hostname");
  const control = controlDb(ctx.env);
  const now = new Date();
  const [claims, mine, earlier] = await control.batch([
    control.select().from(customHostnames).where(eq(customHostnames.hostname, hostname)),
    control.select().from(customHostnames).where(ownedBy(owner)),
    control.select().from(customHostnameClaims).where(claimOf(owner, hostname)),
  ]);
  if (claims.some((r) => r.verifiedAt !== null || (isOwners(owner)(r) && !claimExpired(r, now))))
    throw conflict(`The hostname ${hostname} is already registered`);
  // claims past their 7 days hold nothing: removed now rather than at the next sweep
  const expired = claims.filter((r) => claimExpired(r, now));
  for (const r of expired) await expireClaim(ctx.env, r);
  const live = claims.filter((r) => !expired.includes(r));
  const held = mine.filter((r) => !expired.some((x) => x.id === r.id));

  const firstClaimedAt = earlier[0]?.firstClaimedAt ?? nowIso(now);
  const ownershipToken = earlier[0]?.ownershipToken ?? newOwnershipToken();
  let owned: OwnershipCheck | undefined;
  if (Date.parse(firstClaimedAt) + CLAIM_TTL_MS <= now.getTime()) {
    // the owner's 7 days for this name are over: only a proof already in DNS gets it
    owned = await checkOwnership(ctx.env, { hostname, ownershipToken });
    if (!owned.verified) {
      const record = ownershipRecord({ hostname, ownershipToken });
      throw conflict(
        `The claim on ${hostname} lapsed at ${claimExpiresAt(firstClaimedAt)} without proof of ownership: publish the TXT record ${record.name} with the value ${record.value}, then claim it again`,
      );
    }
  }
  const verified = owned?.verified === true;
  if (!verified && held.filter((r) => !r.verifiedAt && !claimExpired(r, now)).length >= MAX_UNVERIFIED_PER_OWNER)
    throw conflict(UNVERIFIED_CAP(owner));
  if (held.length >= MAX_HOSTNAMES_PER_OWNER) throw conflict(TOTAL_CAP(owner));

  const provider = providerOf(ctx.env);
  // the claims of one name share its Cloudflare record (Cloudflare holds a name once per zone)
  const shared = live.find((r) => r.providerId)?.providerId ?? null;
  const provided =
    (shared ? await provider.get(shared).catch(upstream) : null) ?? (await provider.create(hostname).catch(upstream));
  const at = nowIso(now);
  const row: Row = {
    id: newId(),
    scope: owner.scope,
    scopeId: owner.scopeId,
    agencyId: owner.agencyId,
    hostname,
    ownershipToken,
    claimedAt: firstClaimedAt,
    createdAt: at,
    ...fromProvider(provided, at, undefined, owned),
  };
  const audit = (action: string) =>
    auditStatement(ctx, {
      tenantId: owner.tenantId,
      action,
      resourceType: "custom_hostname",
      resourceId: row.id,
      nextState: row,
    });
  try {
    await commitControl(
      ctx,
      (c) => [
        claimGuard(c, owner, now, verified),
        c.insert(customHostnames).values(row),
        // proven: a later claim of the name is a new one; else the first claim's time and token are kept
        verified
          ? c.delete(customHostnameClaims).where(claimOf(owner, hostname))
          : c
              .insert(customHostnameClaims)
              .values({ scope: owner.scope, scopeId: owner.scopeId, hostname, firstClaimedAt, ownershipToken })
              .onConflictDoNothing(),
      ],
      [audit("custom_hostname.created"), ...(verified ? [audit("custom_hostname.verified")] : [])],
    );
  } catch (e) {
    if (provided.id !== shared && !(await providerRecordShared(control, row)))
      await provider.delete(provided.id).catch(() => undefined);
    const cap = capExceeded(e);
    if (cap) throw conflict(cap === "unverified" ? UNVERIFIED_CAP(owner) : TOTAL_CAP(owner));
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
  try {
    await commitControl(
      ctx,
      (c) => [
        c.update(customHostnames).set(next).where(eq(customHostnames.id, before.id)),
        // proven: the owner's first-claim record has done its work (a later claim is a new one)
        ...(verified ? [c.delete(customHostnameClaims).where(claimOf(before, before.hostname))] : []),
      ],
      [
        ...(verified
          ? [audit("custom_hostname.verified", { verifiedAt: null }, { verifiedAt: after.verifiedAt })]
          : []),
        ...(changed
          ? [
              audit(
                "custom_hostname.status_changed",
                { status: before.status, sslStatus: before.sslStatus },
                { status: after.status, sslStatus: after.sslStatus },
              ),
            ]
          : []),
      ],
    );
  } catch (e) {
    // another owner's claim of the name was verified a moment earlier (the partial unique index): it won
    if (verified && isUniqueViolation(e))
      return applyStatus(ctx, owner, before, p, { verified: false, reason: PROVEN_BY_ANOTHER });
    throw e;
  }
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
  const owned = before.verifiedAt
    ? undefined
    : (await provenByAnother(ctx.control, before))
      ? ({ verified: false, reason: PROVEN_BY_ANOTHER } as const)
      : await checkOwnership(ctx.env, before);
  const p = before.providerId ? await provider.get(before.providerId) : null;
  return applyStatus(ctx, owner, before, p, owned);
}

/** Checks ownership and asks Cloudflare for the hostname's current status (the customer just created the DNS records). */
export async function refreshHostname(ctx: PlatformContext, owner: Owner, id: string) {
  const before = await findRow(controlDb(ctx.env), owner, id);
  return view(ctx.env, await recheck(ctx, owner, before, providerOf(ctx.env)).catch(upstream));
}

/**
 * Removes an unverified claim past its 7 days, at Cloudflare (already gone is fine; kept while another
 * claim of the name reads it) and here, audited. The owner's first-claim record stays.
 */
async function expireClaim(env: Env, row: Row) {
  const tenantId = row.scope === "tenant" ? row.scopeId : null;
  const ctx = await systemContext(env, tenantId);
  if (row.providerId && !(await providerRecordShared(ctx.control, row)))
    await customHostnameProvider(env)?.delete(row.providerId);
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

/**
 * Removes it from Cloudflare (already gone there is fine; kept while another claim of the name reads it)
 * and here; links stop using it at once in this isolate, within a minute elsewhere. An unverified claim's
 * first-claim record stays: claiming the name again keeps its 7 days and token.
 */
export async function deleteHostname(ctx: PlatformContext, owner: Owner, id: string) {
  const before = await findRow(controlDb(ctx.env), owner, id);
  // another owner's claim of the name may still read the Cloudflare record
  if (before.providerId && !(await providerRecordShared(controlDb(ctx.env), before)))
    await providerOf(ctx.env).delete(before.providerId).catch(upstream);
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

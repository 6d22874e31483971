import { and, eq, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { idempotencyKeys } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { sha256Hex } from "../../lib/crypto";
import { ApiError, conflict } from "../../lib/errors";
import { nowIso } from "../../lib/time";

/**
 * Idempotency-Key (IETF httpapi draft) for POST /v1/solicitations. A key belongs to a tenant and
 * lives 24 hours. The first request claims it (insert-or-nothing, so exactly one of concurrent
 * duplicates wins); its response is stored in the same D1 batch as the solicitation, so a stored
 * response always means the solicitation exists, and a replay returns it byte for byte.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** an in-flight claim older than this was abandoned (its isolate died) and may be taken over */
export const ABANDONED_AFTER_MS = 60_000;

/** how long a duplicate waits for the first request's answer before it is a 409 */
export const IN_FLIGHT_WAIT_MS = 10_000;
const IN_FLIGHT_POLL_MS = 25;

export type Claim = { kind: "claimed" } | { kind: "replay"; status: number; body: unknown };

/** JSON with object keys sorted at every level, so key order and whitespace do not change the hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

export const requestHash = (body: unknown) => sha256Hex(canonicalJson(body));

const keyOf = (ctx: Pick<ServiceContext, "tenantId">, key: string) =>
  and(eq(idempotencyKeys.tenantId, ctx.tenantId), eq(idempotencyKeys.key, key));

/** Claims the key for this request, or says what to answer instead (replay, 409 in flight, 422 reused). */
export async function claimIdempotencyKey(
  ctx: ServiceContext,
  key: string,
  hash: string,
  now = new Date(),
): Promise<Claim> {
  const created = nowIso(now);
  const fresh = {
    requestHash: hash,
    responseStatus: null,
    responseBody: null,
    createdAt: created,
    expiresAt: nowIso(new Date(now.getTime() + IDEMPOTENCY_TTL_MS)),
  };
  const inserted = await ctx.db
    .insert(idempotencyKeys)
    .values({ tenantId: ctx.tenantId, key, ...fresh })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length) return { kind: "claimed" };

  // an expired record, or an abandoned claim of the same request, is taken over (atomically: one winner)
  const abandonedBefore = nowIso(new Date(now.getTime() - ABANDONED_AFTER_MS));
  const taken = await ctx.db
    .update(idempotencyKeys)
    .set(fresh)
    .where(
      and(
        keyOf(ctx, key),
        or(
          lte(idempotencyKeys.expiresAt, created),
          and(
            isNull(idempotencyKeys.responseStatus),
            lt(idempotencyKeys.createdAt, abandonedBefore),
            eq(idempotencyKeys.requestHash, hash),
          ),
        ),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  if (taken.length) return { kind: "claimed" };

  // a duplicate of a request still in flight waits for its answer (a client retrying on a timeout, or
  // sending twice, then gets the same answer as the first instead of a 409 it must retry)
  const waitUntil = Date.now() + IN_FLIGHT_WAIT_MS;
  for (;;) {
    const row = await ctx.db.select().from(idempotencyKeys).where(keyOf(ctx, key)).get();
    if (!row) return claimIdempotencyKey(ctx, key, hash, now); // released by a failed first request, or purged: claim again
    if (row.requestHash !== hash) {
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request body");
    }
    if (row.responseStatus !== null) return { kind: "replay", status: row.responseStatus, body: row.responseBody };
    if (Date.now() >= waitUntil) throw conflict("A request with this Idempotency-Key is still in flight; retry later");
    await new Promise((r) => setTimeout(r, IN_FLIGHT_POLL_MS));
  }
}

/** The statement that stores the response; it runs in the same batch as the solicitation it describes. */
export const completeIdempotencyKey = (ctx: ServiceContext, key: string, status: number, body: unknown) =>
  ctx.db.update(idempotencyKeys).set({ responseStatus: status, responseBody: body }).where(keyOf(ctx, key));

/** Frees a claim whose request failed (nothing was created), so the client can retry with the same key. */
export const releaseIdempotencyKey = (ctx: ServiceContext, key: string) =>
  ctx.db.delete(idempotencyKeys).where(and(keyOf(ctx, key), isNull(idempotencyKeys.responseStatus)));

const PURGE_BATCH = 1000;

/** Sweep: deletes expired keys in bounded batches. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date, maxBatches = 20): Promise<number> {
  let purged = 0;
  for (let i = 0; i < maxBatches; i++) {
    const gone = await db
      .delete(idempotencyKeys)
      .where(
        sql`rowid in (select rowid from ${idempotencyKeys} where ${idempotencyKeys.expiresAt} <= ${nowIso(now)} limit ${PURGE_BATCH})`,
      )
      .returning({ key: idempotencyKeys.key });
    purged += gone.length;
    if (gone.length < PURGE_BATCH) break;
  }
  return purged;
}

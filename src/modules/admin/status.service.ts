import { and, asc, count, gte, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { CRONS } from "../../background/cron";
import { deadLettersPerQueueSince } from "../../background/dead-letter";
import type { ControlDb, Db } from "../../db/client";
import { integrations, shardSizes, solicitations, sweepRuns, tenantMoves, tenants } from "../../db/schema";
import { allShards, controlDb, SHARD_CAP_BYTES, shardNumbers } from "../../db/shards";
import type { Env } from "../../env";
import type { PlatformStatus } from "./status.schemas";

/** Queue (local name) -> its producer binding; the dead-letter queue has none (its messages are stored, GET /admin/dead-letters). */
const QUEUE_BINDINGS = {
  sends: "SENDS",
  "review-sync": "REVIEW_SYNC",
  events: "EVENTS",
  webhooks: "WEBHOOKS",
  jobs: "JOBS",
  clicks: "CLICKS",
} as const;

const HOUR_MS = 3600_000;
/** A sweep is stale when its last run is older than three intervals of its cron. */
const STALE_AFTER_MS: Record<string, number> = { [CRONS.frequent]: 15 * 60_000, [CRONS.daily]: 26 * HOUR_MS };
/** A send fails within its retries (minutes) or at the stale sweep's 24 h: its row is at most this old. */
const SEND_ERROR_ROWS_WITHIN_MS = 48 * HOUR_MS;

const iso = (ms: number) => new Date(ms).toISOString();

/** Backlog where the binding tells (Queue.metrics()); null where it does not (an older runtime, the local emulator). */
async function backlog(q: Queue | undefined): Promise<{ waiting: number; oldestWaitingAt: string | null } | null> {
  const metrics = (q as { metrics?: () => Promise<QueueMetrics> } | undefined)?.metrics;
  if (!metrics) return null;
  try {
    const m = await metrics.call(q);
    if (typeof m?.backlogCount !== "number") return null;
    return {
      waiting: m.backlogCount,
      oldestWaitingAt: m.oldestMessageTimestamp ? new Date(m.oldestMessageTimestamp).toISOString() : null,
    };
  } catch {
    return null;
  }
}

async function queues(env: Env, control: ControlDb, now: number): Promise<PlatformStatus["queues"]> {
  const deadBy = await deadLettersPerQueueSince(control, iso(now - 24 * HOUR_MS));
  const names = [...new Set([...Object.keys(QUEUE_BINDINGS), ...deadBy.keys()])];
  return Promise.all(
    names.map(async (queue) => {
      const binding = QUEUE_BINDINGS[queue as keyof typeof QUEUE_BINDINGS];
      const b = binding ? await backlog(env[binding]) : null;
      return {
        queue,
        waiting: b?.waiting ?? null,
        oldestWaitingAt: b?.oldestWaitingAt ?? null,
        deadLetters24h: deadBy.get(queue) ?? 0,
      };
    }),
  );
}

async function sweeps(control: Db, now: number): Promise<PlatformStatus["sweeps"]> {
  const rows = await control.select().from(sweepRuns).orderBy(asc(sweepRuns.cron), asc(sweepRuns.sweep));
  return rows.map((r) => ({
    cron: r.cron,
    sweep: r.sweep,
    lastRunAt: r.startedAt,
    durationMs: r.durationMs,
    outcome: r.outcome,
    error: r.error,
    lastOkAt: r.lastOkAt,
    stale: now - Date.parse(r.startedAt) > (STALE_AFTER_MS[r.cron] ?? Number.POSITIVE_INFINITY),
  }));
}

async function shards(env: Env, control: Db): Promise<PlatformStatus["shards"]> {
  const [sizes, placed] = await control.batch([
    control.select().from(shardSizes),
    control.select({ shard: tenants.shard, n: count() }).from(tenants).groupBy(tenants.shard),
  ]);
  return shardNumbers(env).map((shard) => {
    const size = sizes.find((s) => s.shard === shard);
    return {
      shard,
      bytes: size?.bytes ?? null,
      measuredAt: size?.measuredAt ?? null,
      tenants: placed.find((p) => p.shard === shard)?.n ?? 0,
      fullness: size ? Math.round((size.bytes / SHARD_CAP_BYTES) * 10_000) / 10_000 : null,
      roomBytes: size ? Math.max(0, SHARD_CAP_BYTES - size.bytes) : null,
    };
  });
}

async function movesInProgress(control: Db): Promise<PlatformStatus["tenantMoves"]> {
  const rows = await control
    .select()
    .from(tenantMoves)
    .where(isNull(tenantMoves.finishedAt))
    .orderBy(asc(tenantMoves.createdAt))
    .limit(100);
  return rows.map((m) => ({
    id: m.id,
    tenantId: m.tenantId,
    from: m.fromShard,
    to: m.toShard,
    state: m.state,
    rows: m.tables.reduce((n, t) => n + t.copied, 0),
    startedAt: m.createdAt,
    updatedAt: m.updatedAt,
  }));
}

type ProviderErrors = { provider: string; send: number; sync: number; lastAt: string; last: string };

/**
 * Send errors: a solicitation the provider refused or failed (FAILED, or PENDING with a failure
 * reason while it is retried) whose row changed in the last hour. The provider is the column when
 * the provider's webhook reported it, else the "<provider>: " prefix of the reason
 * (src/modules/solicitations/delivery.ts). Sync errors: connections whose last sync failed or was
 * rate-limited in the last hour, by connector. Every shard, side by side.
 */
async function providers(env: Env, now: number): Promise<PlatformStatus["providers"]> {
  const since = iso(now - HOUR_MS);
  const providerOf = sql<string>`coalesce(${solicitations.provider}, case when instr(${solicitations.failureReason}, ': ') > 0 then substr(${solicitations.failureReason}, 1, instr(${solicitations.failureReason}, ': ') - 1) end, 'unknown')`;
  const perShard = await Promise.all(
    allShards(env).map(({ db }) =>
      db.batch([
        db
          .select({
            provider: providerOf,
            n: count(),
            lastAt: sql<string>`max(${solicitations.updatedAt})`,
            last: sql<string>`max(${solicitations.updatedAt} || char(31) || ${solicitations.failureReason})`,
          })
          .from(solicitations)
          .where(
            and(
              inArray(solicitations.status, ["FAILED", "PENDING"]),
              gte(solicitations.createdAt, iso(now - SEND_ERROR_ROWS_WITHIN_MS)),
              isNotNull(solicitations.failureReason),
              gte(solicitations.updatedAt, since),
            ),
          )
          .groupBy(providerOf),
        db
          .select({
            provider: integrations.connectorType,
            n: count(),
            lastAt: sql<string>`max(${integrations.updatedAt})`,
            last: sql<string>`max(${integrations.updatedAt} || char(31) || coalesce(${integrations.lastSyncError}, ${integrations.lastSyncStatus}))`,
          })
          .from(integrations)
          .where(
            and(inArray(integrations.lastSyncStatus, ["error", "rate_limited"]), gte(integrations.updatedAt, since)),
          )
          .groupBy(integrations.connectorType),
      ]),
    ),
  );
  const by = new Map<string, ProviderErrors>();
  const add = (kind: "send" | "sync", r: { provider: string; n: number; lastAt: string; last: string }) => {
    const p = by.get(r.provider) ?? { provider: r.provider, send: 0, sync: 0, lastAt: "", last: "" };
    p[kind] += r.n;
    if (r.lastAt > p.lastAt) [p.lastAt, p.last] = [r.lastAt, r.last.slice(r.last.indexOf("\u001f") + 1)];
    by.set(r.provider, p);
  };
  for (const [sends, syncs] of perShard) {
    for (const r of sends) add("send", r);
    for (const r of syncs) add("sync", r);
  }
  return [...by.values()]
    .sort((a, b) => a.provider.localeCompare(b.provider))
    .map((p) => ({
      provider: p.provider,
      sendErrors1h: p.send,
      syncErrors1h: p.sync,
      lastErrorAt: p.lastAt,
      lastError: p.last.slice(0, 200),
    }));
}

/**
 * GET /admin/status and the platform.status MCP skill: the background machinery at a glance
 * (docs/deploy.md, "What to look at"). Reads only: the control plane, one grouped query per shard
 * for provider errors, and each queue binding's metrics.
 */
export async function platformStatus(env: Env, at = new Date()): Promise<PlatformStatus> {
  const now = at.getTime();
  const control = controlDb(env);
  const [q, s, sh, m, p] = await Promise.all([
    queues(env, control, now),
    sweeps(control, now),
    shards(env, control),
    movesInProgress(control),
    providers(env, now),
  ]);
  return { generatedAt: at.toISOString(), queues: q, sweeps: s, shards: sh, tenantMoves: m, providers: p };
}

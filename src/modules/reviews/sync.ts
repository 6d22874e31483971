import { and, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { Db, ShardDb } from "../../db/client";
import { integrations } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { backoffSeconds } from "../../lib/backoff";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { log } from "../../lib/log";
import { systemContext } from "../../lib/system-context";
import { nowIso } from "../../lib/time";
import {
  type ExternalReview,
  type FetchFn,
  QuotaWaitError,
  REVIEW_SITES,
  type ReviewPage,
  ReviewSiteError,
  reviewSiteClient,
} from "../../providers/review-sites";
import { DEFAULT_BACKOFF_SECONDS } from "../../providers/review-sites/quota";
import { clearNeedsAttention, markNeedsAttention } from "../integrations/attention";
import { siteCallBudget } from "../integrations/call-budget";
import type { IntegrationRow } from "../integrations/schemas";
import { siteConnection } from "../integrations/service";
import { assertLocationRefs } from "../locations/refs";
import { observeModeration } from "./reply-outcome";
import { findByExternalIds, prepareReview, type ReviewInput } from "./upsert";

/** One REVIEW_SYNC message: sync this integration from `cursor`, keeping reviews changed since `since`. */
export interface ReviewSyncJob {
  tenantId: string;
  integrationId: string;
  cursor: string | null;
  /** the last completed sync's start; null syncs everything the site returns */
  since: string | null;
  startedAt: string;
}

/** Pages one message works through before it hands the rest to a follow-up message. */
export const PAGES_PER_MESSAGE = 10;
/** The periodic sweep queues a connection at most this often. */
export const SYNC_INTERVAL_MINUTES = 60;
/** Sites settle edits late; re-read a little before the last sync (upserts make the overlap harmless). */
const OVERLAP_MS = 60 * 60 * 1000;
const SEND_BATCH = 100;

const jobFor = (row: IntegrationRow, startedAt: string): ReviewSyncJob => ({
  tenantId: row.tenantId,
  integrationId: row.id,
  cursor: null,
  since: row.lastSyncAt ? new Date(Date.parse(row.lastSyncAt) - OVERLAP_MS).toISOString() : null,
  startedAt,
});

async function enqueue(db: Db, env: Env, rows: IntegrationRow[], now: string) {
  for (let i = 0; i < rows.length; i += SEND_BATCH) {
    const chunk = rows.slice(i, i + SEND_BATCH);
    await env.REVIEW_SYNC.sendBatch(chunk.map((r) => ({ body: jobFor(r, now) })));
    await db
      .update(integrations)
      .set({ syncRequestedAt: now })
      .where(
        inArray(
          integrations.id,
          chunk.map((r) => r.id),
        ),
      );
  }
}

const siteTypes = [...REVIEW_SITES] as string[];

/** POST /v1/reviews/sync: one REVIEW_SYNC job per enabled review-site connection (of one location, if given). */
export async function requestSync(
  ctx: ServiceContext,
  input: { locationId?: string },
  // the jobs' startedAt; a review_sync task reads each connection's outcome against it (sync-job.ts)
  now = nowIso(),
) {
  await assertLocationRefs(ctx, [input.locationId]);
  const rows = await ctx.db
    .select()
    .from(integrations)
    .where(
      and(
        eq(integrations.tenantId, ctx.tenantId),
        eq(integrations.isEnabled, true),
        inArray(integrations.connectorType, siteTypes),
        input.locationId ? eq(integrations.locationId, input.locationId) : undefined,
      ),
    );
  await enqueue(ctx.db, ctx.env, rows, now);
  const jobs = rows.map((r) => ({ integrationId: r.id, siteType: r.connectorType, locationId: r.locationId }));
  const bySite: Record<string, number> = {};
  for (const j of jobs) bySite[j.siteType] = (bySite[j.siteType] ?? 0) + 1;
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "review.sync_requested",
      resourceType: "review_sync",
      resourceId: ctx.tenantId,
      nextState: { jobs },
      metadata: { locationId: input.locationId ?? null },
    }),
  ]);
  return { queued: jobs.length, bySite, jobs };
}

/** Cron: queue every enabled connection not queued within the interval. */
export async function scheduleDueSyncs(env: Env, db: ShardDb, now: Date) {
  const cutoff = new Date(now.getTime() - SYNC_INTERVAL_MINUTES * 60_000).toISOString();
  const dayAgo = new Date(now.getTime() - 24 * 3600_000).toISOString();
  const due = await db
    .select()
    .from(integrations)
    .where(
      and(
        eq(integrations.isEnabled, true),
        inArray(integrations.connectorType, siteTypes),
        // a connection the site refused for good (deprecated API, dead token) waits for a person: polling it only repeats the refusal
        isNull(integrations.attentionCode),
        or(isNull(integrations.syncRequestedAt), lt(integrations.syncRequestedAt, cutoff)),
        // while the site pushes reviews by webhook (Trustpilot), polling is a daily reconciliation
        or(
          isNull(integrations.lastWebhookAt),
          lt(integrations.lastWebhookAt, dayAgo),
          isNull(integrations.syncRequestedAt),
          lt(integrations.syncRequestedAt, dayAgo),
        ),
      ),
    )
    .limit(500);
  await enqueue(db, env, due, now.toISOString());
}

const toInput = (r: ExternalReview, row: IntegrationRow): ReviewInput => ({
  locationId: row.locationId!,
  siteType: row.connectorType,
  externalReviewId: r.externalReviewId,
  rating: r.rating,
  ratingMax: r.ratingMax,
  text: r.text,
  authorName: r.authorName,
  authorExternalId: r.authorExternalId,
  language: r.language,
  externalUrl: r.url,
  publishedAt: r.publishedAt,
  replyText: r.replyText,
  recommendation: r.recommendation ?? null,
  isFirstParty: false,
  isPublic: true,
});

/** Upserts one page of a site's reviews in one batch, with one audit row for the page. */
export async function storePage(ctx: ServiceContext, row: IntegrationRow, page: ExternalReview[]) {
  const existing = await findByExternalIds(
    ctx,
    row.connectorType,
    page.map((r) => r.externalReviewId),
  );
  const now = nowIso();
  const seen = new Set<string>();
  const prepared = [];
  for (const r of page) {
    if (seen.has(r.externalReviewId)) continue;
    seen.add(r.externalReviewId);
    prepared.push(await prepareReview(ctx, toInput(r, row), existing.get(r.externalReviewId), now));
  }
  const changed = prepared.filter((p) => p.changed);
  // the site's verdict on replies we sent (Google moderation), after the page's own writes
  const moderate = () => observeModeration(ctx, row.connectorType, page, existing);
  if (!changed.length) {
    await moderate();
    return { created: 0, updated: 0 };
  }
  const created = changed.filter((p) => p.created).map((p) => p.row.id);
  const updated = changed.filter((p) => !p.created).map((p) => p.row.id);
  await commit(
    ctx,
    [
      ...changed.flatMap((p) => p.statements),
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "review.synced",
        resourceType: "integration",
        resourceId: row.id,
        nextState: { created, updated },
        metadata: { siteType: row.connectorType },
      }),
    ],
    changed.flatMap((p) => p.events),
  );
  await moderate();
  return { created: created.length, updated: updated.length };
}

const isNewer = (r: ExternalReview, since: string | null) =>
  !since || !(r.updatedAt ?? r.publishedAt) || (r.updatedAt ?? r.publishedAt)! >= since;

export type SyncOutcome =
  | { kind: "done"; created: number; updated: number }
  | { kind: "continue"; cursor: string; created: number; updated: number }
  /** the quota is used up: go on from `cursor` after `delaySeconds` (`local`: our limiter said so, the site was not called) */
  | { kind: "wait"; cursor: string | null; delaySeconds: number; local: boolean; created: number; updated: number };

export interface SyncDeps {
  fetch: FetchFn;
  /** the quota limiter's clock (tests run it virtually) */
  now?: () => number;
}

/**
 * Works through up to PAGES_PER_MESSAGE pages (newest first), stopping at reviews older than `since`.
 * Every call asks the shared quota limiter first. When the limiter says wait, or the site answers 429
 * after some pages were stored, the rest goes on from the current page after the wait: pages already
 * stored are not fetched again and no review is skipped.
 */
export async function syncIntegration(
  ctx: ServiceContext,
  row: IntegrationRow,
  job: ReviewSyncJob,
  deps: SyncDeps,
): Promise<SyncOutcome | null> {
  const conn = await siteConnection(ctx.env, row);
  if (!conn) return null;
  const client = reviewSiteClient(conn, deps.fetch, {
    quota: ctx.env.PROVIDER_QUOTA,
    now: deps.now,
    budget: siteCallBudget(ctx.env, conn),
  });
  let cursor = job.cursor;
  let created = 0;
  let updated = 0;
  for (let pages = 0; pages < PAGES_PER_MESSAGE; pages++) {
    let page: ReviewPage;
    try {
      page = await client.listReviews(cursor);
    } catch (err) {
      const local = err instanceof QuotaWaitError;
      if (!(err instanceof ReviewSiteError && err.rateLimited && (local || pages > 0))) throw err;
      return {
        kind: "wait",
        cursor,
        delaySeconds: err.retryAfterSeconds ?? DEFAULT_BACKOFF_SECONDS,
        local,
        created,
        updated,
      };
    }
    const fresh = page.reviews.filter((r) => isNewer(r, job.since));
    const counts = await storePage(ctx, row, fresh);
    created += counts.created;
    updated += counts.updated;
    const reachedOld = fresh.length < page.reviews.length;
    if (!page.nextCursor || reachedOld) return { kind: "done", created, updated };
    cursor = page.nextCursor;
  }
  return { kind: "continue", cursor: cursor!, created, updated };
}

function isJob(b: unknown): b is ReviewSyncJob {
  const j = b as ReviewSyncJob;
  return (
    Boolean(j) &&
    typeof j.tenantId === "string" &&
    typeof j.integrationId === "string" &&
    typeof j.startedAt === "string"
  );
}

async function recordResult(
  db: Db,
  row: IntegrationRow,
  set: Partial<Pick<IntegrationRow, "lastSyncAt" | "lastSyncStatus" | "lastSyncError">>,
) {
  await db
    .update(integrations)
    .set({ ...set, updatedAt: nowIso() })
    .where(and(eq(integrations.id, row.id), eq(integrations.tenantId, row.tenantId)));
}

/**
 * REVIEW_SYNC consumer. Redelivery is harmless (reviews upsert on (tenant, site, external id)).
 * A 429 retries the message after Retry-After (else backoff); 5xx and network errors retry with
 * backoff; other site errors (bad token, unknown business) are recorded and the message is dropped.
 */
export async function consumeReviewSync(
  batch: MessageBatch<unknown>,
  env: Env,
  db: ShardDb,
  deps: SyncDeps = { fetch: (...a) => fetch(...a) },
) {
  for (const message of batch.messages) {
    const job = message.body;
    if (!isJob(job)) {
      log.warn("malformed review-sync message dropped", { id: message.id });
      message.ack();
      continue;
    }
    // `db` is the tenant's shard (the wiring splits batches by shard: byTenantShard)
    const row = await db
      .select()
      .from(integrations)
      .where(and(eq(integrations.id, job.integrationId), eq(integrations.tenantId, job.tenantId)))
      .get();
    if (!row?.isEnabled || !row.locationId) {
      message.ack();
      continue;
    }
    const ctx = await systemContext(env, job.tenantId, "review-sync");
    try {
      const outcome = await syncIntegration(ctx, row, job, deps);
      if (outcome?.kind === "continue") {
        await env.REVIEW_SYNC.send({ ...job, cursor: outcome.cursor } satisfies ReviewSyncJob);
      } else if (outcome?.kind === "wait") {
        // a wait for quota is not a failure: a fresh message, so it never counts towards dead-lettering
        await env.REVIEW_SYNC.send({ ...job, cursor: outcome.cursor } satisfies ReviewSyncJob, {
          delaySeconds: outcome.delaySeconds,
        });
        if (!outcome.local)
          await recordResult(db, row, {
            lastSyncStatus: "rate_limited",
            lastSyncError: "google answered 429 RESOURCE_EXHAUSTED; continuing after the wait",
          });
      } else if (outcome) {
        await recordResult(db, row, { lastSyncAt: job.startedAt, lastSyncStatus: "ok", lastSyncError: null });
        await clearNeedsAttention(db, row);
      }
      message.ack();
    } catch (err) {
      if (err instanceof ReviewSiteError) {
        await recordResult(db, row, {
          lastSyncStatus: err.rateLimited ? "rate_limited" : "error",
          lastSyncError: err.message.slice(0, 1000),
        });
        if (err.attention) await markNeedsAttention(db, row, err.attention, "review-sync");
        if (err.retryable) message.retry({ delaySeconds: err.retryAfterSeconds ?? backoffSeconds(message.attempts) });
        else message.ack();
      } else {
        log.error("review sync failed", { integrationId: row.id, error: String(err) });
        await recordResult(db, row, { lastSyncStatus: "error", lastSyncError: String(err).slice(0, 1000) }).catch(
          () => undefined,
        );
        message.retry({ delaySeconds: backoffSeconds(message.attempts) });
      }
    } finally {
      await ctx.settle();
    }
  }
}

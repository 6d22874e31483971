import type { Env } from "../../env";
import { shardD1, tenantShard } from "../../db/shards";
import type { ReviewLinkClickSource, ReviewLinkSite } from "../../db/schema";
import { log } from "../../lib/log";

/** One open of a review link, as it travels on the CLICKS queue (beside solicitation clicks). */
export interface ReviewLinkClick {
  id: string;
  tenantId: string;
  reviewLinkId: string;
  site: ReviewLinkSite;
  source: ReviewLinkClickSource;
  at: string;
}

export interface ReviewLinkClickBatch {
  reviewLinkClicks: ReviewLinkClick[];
}

const isClick = (v: unknown): v is ReviewLinkClick => {
  const c = v as ReviewLinkClick | null;
  return !!c && [c.id, c.tenantId, c.reviewLinkId, c.site, c.at].every((x) => typeof x === "string") && (c.source === "link" || c.source === "qr");
};

/** The valid review-link clicks of a CLICKS message, or null when the message is not of this kind. */
export const reviewLinkClicksOf = (body: unknown): ReviewLinkClick[] | null => {
  const clicks = (body as ReviewLinkClickBatch | null)?.reviewLinkClicks;
  return Array.isArray(clicks) ? clicks.filter(isClick) : null;
};

/**
 * Buffered per isolate and sent as one CLICKS message per flush window, as solicitation clicks
 * are (links/clicks.ts): the request that opens the window owns the flush inside its waitUntil,
 * so no request waits on another's promise. If the queue refuses, the flush writes to D1 itself.
 */
const FLUSH_MS = 5;
const PER_MESSAGE = 100;
const MAX_BUFFER = 1_000;
let buffer: ReviewLinkClick[] = [];
let flushScheduled = false;

export function bufferReviewLinkClick(env: Env, click: ReviewLinkClick, waitUntil: (p: Promise<unknown>) => void): void {
  buffer.push(click);
  if (buffer.length >= MAX_BUFFER) waitUntil(flush(env));
  else if (!flushScheduled) {
    flushScheduled = true;
    waitUntil(new Promise((resolve) => setTimeout(resolve, FLUSH_MS)).then(() => flush(env)));
  }
}

async function flush(env: Env): Promise<void> {
  const clicks = buffer;
  buffer = [];
  flushScheduled = false;
  if (!clicks.length) return;
  const messages: MessageSendRequest<ReviewLinkClickBatch>[] = [];
  for (let i = 0; i < clicks.length; i += PER_MESSAGE) messages.push({ body: { reviewLinkClicks: clicks.slice(i, i + PER_MESSAGE) }, contentType: "json" });
  try {
    if (!env.CLICKS) throw new Error("CLICKS queue binding missing");
    await env.CLICKS.sendBatch(messages as MessageSendRequest[]);
  } catch (err) {
    log.warn("review link click queue send failed; writing directly", { count: clicks.length, error: String(err) });
    await recordOnShards(env, clicks);
  }
}

/** Clicks grouped by their tenant's shard (one message holds clicks of many tenants). */
async function recordOnShards(env: Env, clicks: ReviewLinkClick[]): Promise<void> {
  const byShard = new Map<number, ReviewLinkClick[]>();
  for (const c of clicks) {
    const shard = await tenantShard(env, c.tenantId);
    if (shard !== null) byShard.set(shard, [...(byShard.get(shard) ?? []), c]);
  }
  for (const [shard, own] of byShard) await recordReviewLinkClicks(shardD1(env, shard), own);
}

const PER_STATEMENT = 500;

/**
 * One statement per 500 clicks (one JSON parameter). Idempotent under redelivery (click ids are
 * primary keys); clicks of a deleted link, or naming a tenant the link is not in, are dropped.
 */
export async function recordReviewLinkClicks(d1: D1Database, clicks: ReviewLinkClick[]): Promise<void> {
  if (!clicks.length) return;
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < clicks.length; i += PER_STATEMENT) {
    statements.push(
      d1
        .prepare(
          `insert into review_link_clicks (id, tenant_id, review_link_id, site, source, clicked_at)
           select json_extract(j.value, '$.id'), l.tenant_id, l.id, json_extract(j.value, '$.site'), json_extract(j.value, '$.source'), json_extract(j.value, '$.at')
           from json_each(?1) j
           join review_links l on l.id = json_extract(j.value, '$.reviewLinkId') and l.tenant_id = json_extract(j.value, '$.tenantId')
           where true
           on conflict(id) do nothing`,
        )
        .bind(JSON.stringify(clicks.slice(i, i + PER_STATEMENT))),
    );
  }
  await d1.batch(statements);
}

/** Review-link opens (`/l/{slug}`) as a kind of the CLICKS queue (src/wiring.ts). */
export const reviewLinkClicks = {
  name: "review-link",
  parse: reviewLinkClicksOf,
  record: (env: Env, clicks: ReviewLinkClick[]) => recordOnShards(env, clicks),
};

import type { ReviewLinkClickSource, ReviewLinkSite } from "../../db/schema";
import { shardD1 } from "../../db/shards";
import type { Env } from "../../env";
import { placeByShard, queueHandOff, writeBuffer } from "../../lib/write-buffer";

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
  return (
    !!c &&
    [c.id, c.tenantId, c.reviewLinkId, c.site, c.at].every((x) => typeof x === "string") &&
    (c.source === "link" || c.source === "qr")
  );
};

/** The valid review-link clicks of a CLICKS message, or null when the message is not of this kind. */
export const reviewLinkClicksOf = (body: unknown): ReviewLinkClick[] | null => {
  const clicks = (body as ReviewLinkClickBatch | null)?.reviewLinkClicks;
  return Array.isArray(clicks) ? clicks.filter(isClick) : null;
};

/**
 * Buffered per isolate (src/lib/write-buffer.ts) and sent as one CLICKS message per flush window,
 * as solicitation clicks are (links/clicks.ts). If the queue refuses, the buffer writes them
 * itself, per shard, under the buffer's fence rule.
 */
const FLUSH_MS = 5;
const PER_MESSAGE = 100;
const MAX_BUFFER = 1_000;

const clickBuffer = writeBuffer<ReviewLinkClick>({
  name: "review-link clicks",
  flushAfterMs: FLUSH_MS,
  flushAt: MAX_BUFFER,
  tenantOf: (c) => c.tenantId,
  keyOf: (c) => c.id,
  handOff: queueHandOff(
    (env) => env.CLICKS,
    PER_MESSAGE,
    (reviewLinkClicks): ReviewLinkClickBatch => ({ reviewLinkClicks }),
  ),
  write: (env, shard, clicks) => recordReviewLinkClicks(shardD1(env, shard), clicks),
});

export function bufferReviewLinkClick(
  env: Env,
  click: ReviewLinkClick,
  waitUntil: (p: Promise<unknown>) => void,
): void {
  clickBuffer.add(env, click, waitUntil);
}

/** Clicks grouped by their tenant's shard (one message holds clicks of many tenants; the consumer has retried fenced ones). */
async function recordOnShards(env: Env, clicks: ReviewLinkClick[]): Promise<void> {
  for (const { shard, entries } of await placeByShard(env, clicks, (c) => c.tenantId))
    await recordReviewLinkClicks(shardD1(env, shard), entries);
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

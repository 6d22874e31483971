import type { ShardDb } from "../../db/client";
import { shardD1, shardDb } from "../../db/shards";
import type { Env } from "../../env";
import { dispatchEvents } from "../../lib/events";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { TtlCache } from "../../lib/ttl-cache";
import { placeByShard, queueHandOff, writeBuffer } from "../../lib/write-buffer";
import { keyedDigest } from "./tokens";

// ---- which opens count: one per visitor and window (short links and review links alike) ----

/**
 * An open counts once per visitor per CLICK_WINDOW_MS window (fixed windows), where a visitor is
 * the client's IP address (cf-connecting-ip, set by Cloudflare) and user agent. Not counted at all:
 * HEAD requests (hono answers them with the GET handler), prefetches and prerenders (Sec-Purpose,
 * Purpose, X-Purpose, X-Moz headers) and link-preview bots (PREVIEW_AGENTS). An IP address counts at
 * most COUNTED_PER_IP opens per window across all links, whatever user agents it sends.
 *
 * The counted click's id is derived from (subject, visitor, window) under a per-purpose key, so a
 * visitor answered by two isolates still makes one row: the CLICKS consumer inserts on conflict(id)
 * do nothing. The isolate maps below only spare the queue the repeats; the per-IP cap is per isolate.
 * The redirect itself is never refused or slowed: only the counting is.
 */
export const CLICK_WINDOW_MS = 30 * 60_000;
export const COUNTED_PER_IP = 20;

/** Link unfurlers, crawlers and preview fetchers (user agents). */
const PREVIEW_AGENTS =
  /(?:google|bing|slack|twitter|linkedin|discord|telegram|apple|yandex|baidu|duckduck|petal|semrush|ahrefs|mj12|dot|pinterest)bot|bingpreview|facebookexternalhit|facebookcatalog|whatsapp|skypeuripreview|embedly|vkshare|redditbot|crawler|spider/i;
const PREFETCH = /prefetch|prerender|preview/i;
const LOCAL = /^(|127\.0\.0\.1|::1)$/;

const seenVisits = new TtlCache<true>(CLICK_WINDOW_MS, 10_000);
const countedByIp = new TtlCache<number>(CLICK_WINDOW_MS, 10_000);

/** What the gate reads of a request. */
export interface Visit {
  method: string;
  header: (name: string) => string | undefined;
}

/** A hono request as a Visit. */
export const visitOf = (req: { method: string; header: (name: string) => string | undefined }): Visit => ({
  method: req.method,
  header: (n) => req.header(n),
});

/** Why an open is not counted (null: it is). */
export function uncountedReason(v: Visit): "head" | "prefetch" | "preview_agent" | null {
  if (v.method.toUpperCase() === "HEAD") return "head";
  if (["sec-purpose", "purpose", "x-purpose", "x-moz"].some((h) => PREFETCH.test(v.header(h) ?? ""))) return "prefetch";
  if (PREVIEW_AGENTS.test(v.header("user-agent") ?? "")) return "preview_agent";
  return null;
}

/**
 * The id of the click this open records, or null when it is not counted (see above). `subject` is
 * what is clicked (a solicitation, a review link); `secret` the service secret the id is keyed with.
 */
export async function countedClickId(
  secret: string,
  v: Visit,
  subject: string,
  now = Date.now(),
): Promise<string | null> {
  if (uncountedReason(v)) return null;
  const ip = v.header("cf-connecting-ip") ?? "";
  const window = Math.floor(now / CLICK_WINDOW_MS);
  const visit = `${subject}|${ip}|${(v.header("user-agent") ?? "").slice(0, 256)}|${window}`;
  if (seenVisits.get(visit, now)) return null;
  // Cloudflare always sets cf-connecting-ip; only local runs (wrangler dev, benches) come without
  // one or from loopback, and those are not capped
  if (!LOCAL.test(ip)) {
    const ipKey = `${ip}|${window}`;
    const counted = countedByIp.get(ipKey, now) ?? 0;
    if (counted >= COUNTED_PER_IP) return null;
    countedByIp.set(ipKey, counted + 1, now);
  }
  seenVisits.set(visit, true, now);
  return `v_${await keyedDigest(secret, "visit", visit)}`;
}

/** Tests: forget the visits this isolate has seen. */
export function forgetVisits() {
  seenVisits.clear();
  countedByIp.clear();
}

/** One click as it travels on the CLICKS queue; `id` is minted when the click is answered. */
export interface ClickMessage {
  id: string;
  tenantId: string;
  solicitationId: string;
  source: "redirect" | "qr" | "api";
  at: string;
}

export const isClickMessage = (v: unknown): v is ClickMessage => {
  const m = v as ClickMessage | null;
  return (
    !!m &&
    typeof m.id === "string" &&
    typeof m.tenantId === "string" &&
    typeof m.solicitationId === "string" &&
    typeof m.at === "string" &&
    (m.source === "redirect" || m.source === "qr" || m.source === "api")
  );
};

/** What goes on the CLICKS queue: the clicks one isolate buffered during one flush window. */
export interface ClickBatchMessage {
  clicks: ClickMessage[];
}

/** The valid clicks of a queue message body; anything else yields none. */
export const clicksOf = (body: unknown): ClickMessage[] | null => {
  const clicks = (body as ClickBatchMessage | null)?.clicks;
  return Array.isArray(clicks) ? clicks.filter(isClickMessage) : null;
};

/**
 * Clicks are buffered per isolate for FLUSH_MS (src/lib/write-buffer.ts) and sent with one
 * sendBatch, each message carrying up to CLICKS_PER_MESSAGE clicks (Queues bill and rate-limit per
 * message, 5,000/s per queue), so a redirect costs no queue round trip. If the queue refuses, the
 * buffer writes them itself, per shard (recordClicksOn), under the buffer's fence rule.
 */
export const FLUSH_MS = 5;
const CLICKS_PER_MESSAGE = 100; // ~15 KB, far under the 128 KB message limit
const MAX_BUFFER = 1_000;

const clickBuffer = writeBuffer<ClickMessage>({
  name: "short-link clicks",
  flushAfterMs: FLUSH_MS,
  flushAt: MAX_BUFFER,
  tenantOf: (c) => c.tenantId,
  // the id is the click (one per visitor and window): a repeat adds nothing
  keyOf: (c) => c.id,
  handOff: queueHandOff(
    (env) => env.CLICKS,
    CLICKS_PER_MESSAGE,
    (clicks): ClickBatchMessage => ({ clicks }),
  ),
  write: async (env, shard, clicks) =>
    void (await recordClicksOn(shardD1(env, shard), shardDb(env, shard), env, clicks)),
});

export function bufferClick(env: Env, click: ClickMessage, waitUntil: (p: Promise<unknown>) => void): void {
  clickBuffer.add(env, click, waitUntil);
}

/**
 * Writes clicks in one D1 batch per shard: the click rows (a redelivered click's id already exists:
 * nothing new), a solicitation.clicked event with a deterministic id for each solicitation clicked
 * for the first time, clickedAt for those, and contact activity. Clicks of BLOCKED (never sent)
 * solicitations (COUNTS_CLICKS) and of unknown (deleted) solicitations or tenants are dropped. Returns the number of click rows inserted. The CLICKS
 * consumer calls it after it has retried the messages of fenced tenants.
 */
export async function recordClicks(env: Env, clicks: ClickMessage[]): Promise<number> {
  if (!clicks.length) return 0;
  // one message may carry clicks of tenants on several shards
  let inserted = 0;
  for (const { shard, entries } of await placeByShard(env, clicks, (c) => c.tenantId)) {
    inserted += await recordClicksOn(shardD1(env, shard), shardDb(env, shard), env, entries);
  }
  return inserted;
}

/** `d1`: the shard's binding, for the raw statements of the hot path; `db`: the same shard, for the outbox hand-off. */
async function recordClicksOn(d1: D1Database, db: ShardDb, env: Env, clicks: ClickMessage[]): Promise<number> {
  const now = nowIso();
  const statements: D1PreparedStatement[] = [];
  const inserts = new Set<D1PreparedStatement>();
  for (let i = 0; i < clicks.length; i += CLICKS_PER_STATEMENT) {
    const chunk = clickStatements(d1, clicks.slice(i, i + CLICKS_PER_STATEMENT), now);
    inserts.add(chunk.insert);
    statements.push(chunk.insert, ...chunk.follow);
  }
  const results = await d1.batch(statements);
  const eventIds = [...new Set(clicks.map((c) => `evt_clicked_${c.solicitationId}`))];
  await dispatchEvents(db, env, eventIds).catch((err) =>
    // the stale-event sweep sends them later; nothing is lost
    log.warn("clicked events deferred to sweep", { error: String(err) }),
  );
  // the click rows inserted: the changes of the insert statements only (counted, not assumed by position)
  return results.reduce((n, r, i) => n + (inserts.has(statements[i]!) ? (r.meta.changes ?? 0) : 0), 0);
}

/**
 * Which solicitations' links count clicks: not a BLOCKED one, which was never sent (blocked by the policy
 * at creation or at send time), so an open of its link is no customer's click (a preview, a leaked or
 * guessed token). The redirect still answers; only the recording, here in the consumer's one insert,
 * leaves it out (clickedAt, solicitation.clicked and contact activity follow from the rows), so the
 * redirect's hot path pays nothing for it (docs/performance.md).
 */
const COUNTS_CLICKS = "s.status <> 'BLOCKED'";

/** the clicks travel as one JSON parameter: keep each well under D1's size limits */
const CLICKS_PER_STATEMENT = 500;

/** The statements for one chunk of clicks (see recordClicks): the click rows, then what follows from them. */
function clickStatements(
  d1: D1Database,
  clicks: ClickMessage[],
  now: string,
): { insert: D1PreparedStatement; follow: D1PreparedStatement[] } {
  const payload = JSON.stringify(
    clicks.map((c) => ({
      id: c.id,
      tenantId: c.tenantId,
      solicitationId: c.solicitationId,
      source: c.source,
      at: c.at,
    })),
  );
  const ids = JSON.stringify([...new Set(clicks.map((c) => c.solicitationId))]);
  const insert = d1
    .prepare(
      `insert into link_clicks (id, tenant_id, solicitation_id, source, clicked_at)
       select json_extract(j.value, '$.id'), s.tenant_id, s.id, json_extract(j.value, '$.source'), json_extract(j.value, '$.at')
       from json_each(?1) j
       join solicitations s on s.id = json_extract(j.value, '$.solicitationId') and s.tenant_id = json_extract(j.value, '$.tenantId')
       where ${COUNTS_CLICKS}
       on conflict(id) do nothing`,
    )
    .bind(payload);
  const follow = [
    d1
      .prepare(
        `insert into domain_events (id, tenant_id, type, data, occurred_at, dispatched_at)
         select 'evt_clicked_' || s.id, s.tenant_id, 'solicitation.clicked',
           json_object('solicitationId', s.id, 'contactId', s.contact_id, 'campaignId', s.campaign_id, 'locationId', s.location_id, 'clickedAt', f.first_at),
           f.first_at, null
         from solicitations s
         join (select solicitation_id as sid, min(clicked_at) as first_at from link_clicks
               where solicitation_id in (select value from json_each(?1)) group by solicitation_id) f on f.sid = s.id
         where s.clicked_at is null
         on conflict(id) do nothing`,
      )
      .bind(ids),
    d1
      .prepare(
        `update solicitations
         set clicked_at = (select min(clicked_at) from link_clicks where solicitation_id = solicitations.id), updated_at = ?2
         where id in (select value from json_each(?1)) and clicked_at is null
           and exists (select 1 from link_clicks where solicitation_id = solicitations.id)`,
      )
      .bind(ids, now),
    d1
      .prepare(
        `update contacts set last_activity_at = ?2
         where anonymized_at is null and id in (select contact_id from solicitations s where s.id in (select value from json_each(?1)) and ${COUNTS_CLICKS})`,
      )
      .bind(ids, now),
  ];
  return { insert, follow };
}

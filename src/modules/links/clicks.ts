import { createDb } from "../../db/client";
import type { Env } from "../../env";
import { dispatchEvents } from "../../lib/events";
import { nowIso } from "../../lib/time";

/** One click as it travels on the CLICKS queue; `id` is minted when the click is answered. */
export interface ClickMessage {
  id: string;
  tenantId: string;
  solicitationId: string;
  source: "redirect" | "api";
  at: string;
}

export const isClickMessage = (v: unknown): v is ClickMessage => {
  const m = v as ClickMessage | null;
  return !!m && typeof m.id === "string" && typeof m.tenantId === "string" && typeof m.solicitationId === "string" && typeof m.at === "string" && (m.source === "redirect" || m.source === "api");
};

/**
 * Clicks are buffered per isolate for FLUSH_MS and sent with one sendBatch, so a redirect costs no
 * queue round trip. The request that opens a window owns its flush (inside its own waitUntil);
 * later clicks only join the buffer, so no request ever waits on another request's promise.
 */
export const FLUSH_MS = 5;
const MAX_BATCH = 100; // Queues: sendBatch takes at most 100 messages

let buffer: ClickMessage[] = [];
let flushScheduled = false;

export function bufferClick(env: Env, click: ClickMessage, waitUntil: (p: Promise<unknown>) => void): void {
  buffer.push(click);
  if (buffer.length >= MAX_BATCH) {
    waitUntil(flush(env));
  } else if (!flushScheduled) {
    flushScheduled = true;
    waitUntil(new Promise((resolve) => setTimeout(resolve, FLUSH_MS)).then(() => flush(env)));
  }
}

async function flush(env: Env): Promise<void> {
  const clicks = buffer;
  buffer = [];
  flushScheduled = false;
  for (let i = 0; i < clicks.length; i += MAX_BATCH) {
    const chunk = clicks.slice(i, i + MAX_BATCH);
    try {
      if (!env.CLICKS) throw new Error("CLICKS queue binding missing");
      await env.CLICKS.sendBatch(chunk.map((body) => ({ body, contentType: "json" as const })));
    } catch (err) {
      // the queue refused: write them here instead, so no click is lost
      console.warn(JSON.stringify({ level: "warn", message: "click queue send failed; writing directly", count: chunk.length, error: String(err) }));
      await recordClicks(env, chunk);
    }
  }
}

/**
 * Writes clicks in one D1 batch: the click rows (a redelivered click's id already exists: nothing
 * new), a solicitation.clicked event with a deterministic id for each solicitation clicked for the
 * first time, clickedAt for those, and contact activity. Clicks of unknown (deleted) solicitations
 * are dropped. Returns the number of click rows inserted.
 */
export async function recordClicks(env: Env, clicks: ClickMessage[]): Promise<number> {
  if (!clicks.length) return 0;
  const payload = JSON.stringify(clicks.map((c) => ({ id: c.id, tenantId: c.tenantId, solicitationId: c.solicitationId, source: c.source, at: c.at })));
  const ids = JSON.stringify([...new Set(clicks.map((c) => c.solicitationId))]);
  const now = nowIso();
  const d1 = env.DB;
  const [inserted] = await d1.batch([
    d1
      .prepare(
        `insert into link_clicks (id, tenant_id, solicitation_id, source, clicked_at)
         select json_extract(j.value, '$.id'), s.tenant_id, s.id, json_extract(j.value, '$.source'), json_extract(j.value, '$.at')
         from json_each(?1) j
         join solicitations s on s.id = json_extract(j.value, '$.solicitationId') and s.tenant_id = json_extract(j.value, '$.tenantId')
         where true
         on conflict(id) do nothing`,
      )
      .bind(payload),
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
         where anonymized_at is null and id in (select contact_id from solicitations where id in (select value from json_each(?1)))`,
      )
      .bind(ids, now),
  ]);
  const eventIds = [...new Set(clicks.map((c) => `evt_clicked_${c.solicitationId}`))];
  await dispatchEvents(createDb(d1), env, eventIds).catch((err) =>
    // the stale-event sweep sends them later; nothing is lost
    console.warn(JSON.stringify({ level: "warn", message: "clicked events deferred to sweep", error: String(err) })),
  );
  return inserted!.meta.changes ?? 0;
}

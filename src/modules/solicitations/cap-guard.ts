import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { frequencyCapGuard, solicitations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import type { SolicitationRow } from "./schemas";

const DAY_MS = 24 * 3600_000;

/**
 * The first statement of a send batch: it fails the whole batch (CHECK frequency_cap_exceeded) when,
 * for any contact with PENDING rows in it, the non-blocked solicitations already stored in the cap
 * windows plus this batch's would exceed the daily or weekly cap. A D1 batch runs as one transaction
 * that no other write interleaves with, so count and insert are one atomic step: two requests that
 * both read "2 of 3" cannot both commit a third. Counts every non-blocked row newer than the window
 * start (also rows another request stamped a moment later), which errs on the side of fewer sends.
 */
export function capGuardStatement(
  ctx: ServiceContext,
  rows: SolicitationRow[],
  caps: { frequencyCapDaily: number; frequencyCapWeekly: number },
  now: Date,
): BatchItem<"sqlite"> | null {
  const perContact = new Map<string, number>();
  for (const r of rows) if (r.status === "PENDING") perContact.set(r.contactId, (perContact.get(r.contactId) ?? 0) + 1);
  if (!perContact.size) return null;
  const list = JSON.stringify([...perContact].map(([c, n]) => ({ c, n })));
  const dayAgo = nowIso(new Date(now.getTime() - DAY_MS));
  const weekAgo = nowIso(new Date(now.getTime() - 7 * DAY_MS));
  const sent = (since: string) =>
    sql`(select count(*) from ${solicitations} s where s.tenant_id = ${ctx.tenantId} and s.contact_id = json_extract(j.value, '$.c') and s.status <> 'BLOCKED' and s.created_at > ${since})`;
  return ctx.db.insert(frequencyCapGuard).select(
    sql`select json_extract(j.value, '$.c') from json_each(${list}) j
        where ${sent(dayAgo)} + json_extract(j.value, '$.n') > ${caps.frequencyCapDaily}
           or ${sent(weekAgo)} + json_extract(j.value, '$.n') > ${caps.frequencyCapWeekly}`,
  );
}

/** True when a batch failed because its cap guard tripped (another request took the last slot first). */
export function isCapExceeded(e: unknown): boolean {
  for (let err = e as { message?: string; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (/frequency_cap_exceeded/.test(String(err.message))) return true;
  }
  return false;
}

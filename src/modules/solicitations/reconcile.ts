import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { contacts, outboxMessages, sendRecords, solicitations } from "../../db/schema";
import type { Env } from "../../env";
import { dispatchEvents } from "../../lib/events";
import { nowIso } from "../../lib/time";
import { causeOf } from "./cause";
import { enqueueSends } from "./queue";
import { sentEvent } from "./sent-event";

/**
 * A claim older than this is no longer in flight: a queue consumer runs 15 minutes at most
 * (Cloudflare Queues, "Limits": consumer wall-clock duration), so the consumer that took it is done
 * or dead, and whatever it learnt from the provider is on the claim, in the outbox or lost.
 */
export const CLAIM_ORPHANED_AFTER_MS = 15 * 60_000;
const LIMIT = 500;

interface Reconciled {
  id: string;
  tenantId: string;
  locationId: string;
  contactId: string;
  campaignId: string | null;
  channel: string;
  metadata: Record<string, unknown>;
  provider: string | null;
  providerMessageId: string | null;
  sentAt: string;
  deliveryOutcome: "unknown" | null;
}

/**
 * Crash truth (docs/sending.md): a PENDING solicitation with a claim older than
 * CLAIM_ORPHANED_AFTER_MS was handed to a provider by a consumer that died before recording the
 * result. It is never sent again; its state comes from what is known, in this order:
 *   1. the claim carries the provider's message id (written as the provider answered) → SENT;
 *   2. the outbox holds its message (the outbox is a D1 write: the row is the proof) → SENT;
 *   3. a claim for the outbox without its row: never taken (the outbox write is atomic) → the claim
 *      is released and the message queued again;
 *   4. nothing can tell → SENT with deliveryOutcome "unknown" (a later delivery report carrying our
 *      id resolves it, src/modules/solicitations/provider-callbacks.ts).
 * Never FAILED: a message that may have gone out is not reported as failed. One batch per run,
 * every write conditional on PENDING; the `solicitation.sent` event has one id per solicitation.
 */
export async function reconcileInterruptedSends(
  db: Db,
  env: Env,
  now: Date,
): Promise<{ sent: number; unknown: number; resent: number }> {
  const orphanedBefore = nowIso(new Date(now.getTime() - CLAIM_ORPHANED_AFTER_MS));
  const rows = await db
    .select({
      s: {
        id: solicitations.id,
        tenantId: solicitations.tenantId,
        locationId: solicitations.locationId,
        contactId: solicitations.contactId,
        campaignId: solicitations.campaignId,
        channel: solicitations.channel,
        metadata: solicitations.metadata,
      },
      claimProvider: sendRecords.provider,
      claimMessageId: sendRecords.providerMessageId,
      claimedAt: sendRecords.createdAt,
      outboxId: sql<
        string | null
      >`(select min(${outboxMessages.id}) from ${outboxMessages} where ${outboxMessages.solicitationId} = ${solicitations.id})`.as(
        "outbox_id",
      ),
    })
    .from(solicitations)
    .innerJoin(sendRecords, eq(sendRecords.solicitationId, solicitations.id))
    .where(and(eq(solicitations.status, "PENDING"), lt(sendRecords.createdAt, orphanedBefore)))
    .limit(LIMIT);
  if (!rows.length) return { sent: 0, unknown: 0, resent: 0 };
  // the outbox answers for itself: its write is one D1 batch, so a claim for it with no row means
  // the message was never taken: the claim is released and the message queued again (no double)
  const neverTaken = rows
    .filter((r) => r.claimProvider === "outbox" && !r.claimMessageId && !r.outboxId)
    .map((r) => r.s);
  const found: Reconciled[] = rows
    .filter((r) => !neverTaken.includes(r.s))
    .map((r) => {
      // a claim written before claims named their provider says "pending"
      const claimProvider = r.claimProvider === "pending" ? null : r.claimProvider;
      const known = r.claimMessageId
        ? { provider: claimProvider, providerMessageId: r.claimMessageId }
        : r.outboxId
          ? { provider: "outbox", providerMessageId: r.outboxId }
          : null;
      return {
        ...r.s,
        provider: known?.provider ?? claimProvider,
        providerMessageId: known?.providerMessageId ?? null,
        sentAt: r.claimedAt,
        deliveryOutcome: known ? null : "unknown",
      };
    });
  const json = JSON.stringify(
    found.map(({ id, provider, providerMessageId, sentAt, deliveryOutcome }) => ({
      id,
      provider,
      providerMessageId,
      sentAt,
      deliveryOutcome,
    })),
  );
  const field = (name: string) =>
    sql`(select json_extract(value, ${`$.${name}`}) from json_each(${json}) where json_extract(value, '$.id') = ${solicitations.id})`;
  const at = nowIso(now);
  const events = found.map((r) =>
    sentEvent(db, r.tenantId, {
      solicitationId: r.id,
      locationId: r.locationId,
      contactId: r.contactId,
      campaignId: r.campaignId,
      channel: r.channel,
      status: "SENT",
      provider: r.provider,
      providerMessageId: r.providerMessageId,
      deliveryOutcome: r.deliveryOutcome,
      reconciled: true,
      ...causeOf(r.metadata),
    }),
  );
  const ids = sql`(select json_extract(value, '$.id') from json_each(${json}))`;
  const statements: BatchItem<"sqlite">[] = [
    db
      .update(solicitations)
      .set({
        status: "SENT",
        provider: field("provider"),
        providerMessageId: field("providerMessageId"),
        sentAt: field("sentAt"),
        deliveryOutcome: field("deliveryOutcome"),
        failureReason: null,
        updatedAt: at,
      })
      .where(and(sql`${solicitations.id} in ${ids}`, eq(solicitations.status, "PENDING"))),
    // the claim says what the solicitation says (a later redelivery acks it either way)
    db
      .update(sendRecords)
      .set({
        providerMessageId: sql`coalesce(${sendRecords.providerMessageId}, (select json_extract(value, '$.providerMessageId') from json_each(${json}) where json_extract(value, '$.id') = ${sendRecords.solicitationId}))`,
      })
      .where(and(sql`${sendRecords.solicitationId} in ${ids}`, isNull(sendRecords.providerMessageId))),
    db
      .update(contacts)
      .set({ lastActivityAt: at })
      .where(and(sql`${contacts.id} in ${jsonIds(found.map((r) => r.contactId))}`, isNull(contacts.anonymizedAt))),
    ...events.map((e) => e.statement),
    ...(neverTaken.length
      ? [
          db
            .delete(sendRecords)
            .where(
              and(
                sql`${sendRecords.solicitationId} in ${jsonIds(neverTaken.map((s) => s.id))}`,
                isNull(sendRecords.providerMessageId),
                eq(sendRecords.provider, "outbox"),
              ),
            ),
        ]
      : []),
  ];
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  await enqueueSends(env, neverTaken);
  // events another path wrote first stay as they are; unsent ones go to the queue now
  if (events.length)
    await dispatchEvents(
      db,
      env,
      events.map((e) => e.event.id),
    );
  const unknown = found.filter((r) => r.deliveryOutcome === "unknown").length;
  return { sent: found.length - unknown, unknown, resent: neverTaken.length };
}

const jsonIds = (ids: string[]) => sql`(select value from json_each(${JSON.stringify([...new Set(ids)])}))`;

import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { ShardDb } from "../../db/client";
import { consentRecords, contacts, type SolicitationStatus, sendRecords, solicitations } from "../../db/schema";
import { allShards, tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { groupBy } from "../../lib/collections";
import { commit, type PendingEvent } from "../../lib/commit";
import { SYSTEM_META } from "../../lib/context";
import { type EventType, eventStatement } from "../../lib/events";
import { inJson } from "../../lib/sql";
import { nowIso } from "../../lib/time";
import type { WebhookOutcome } from "../../providers/messaging/callbacks/handle";
import { isStopKeyword } from "../../providers/messaging/callbacks/stop-keywords";
import type { DeliveryEvent, DeliveryStatus, InboundMessage } from "../../providers/messaging/callbacks/types";
import { consentRecordStatements } from "../contacts/consent";
import { causeOf } from "./cause";
import { sentEvent } from "./sent-event";
import { canMove, type SolicitationMove } from "./states";

const MOVE_OF: Record<DeliveryStatus, SolicitationMove> = {
  delivered: "delivered",
  bounced: "bounced",
  failed: "failed",
  complained: "complained",
};
const EVENT_OF: Record<SolicitationMove, EventType | null> = {
  delivered: "solicitation.delivered",
  complained: "solicitation.delivered",
  bounced: "solicitation.bounced",
  failed: "solicitation.failed",
  send: null,
  failSend: null,
  blockAtSend: null,
};

interface Writes {
  statements: BatchItem<"sqlite">[];
  events: PendingEvent[];
}

const auditSource = (db: ShardDb, provider: string) => ({
  db,
  actor: { type: "system" as const, name: `webhook:${provider}` },
  meta: SYSTEM_META,
});

const STATUS_AFTER: Record<SolicitationMove, SolicitationStatus> = {
  delivered: "DELIVERED",
  complained: "DELIVERED",
  bounced: "BOUNCED",
  failed: "FAILED",
  send: "SENT",
  failSend: "FAILED",
  blockAtSend: "BLOCKED",
};

interface Change {
  id: string;
  from: SolicitationStatus;
  to: SolicitationStatus;
  deliveredAt?: string;
  failureReason?: string;
}

/** The value of `field` for the row being updated, from the JSON array of changes (else the column keeps its value). */
const fromChanges = (json: string, field: string, column: SQLiteColumn) =>
  sql`coalesce((select json_extract(value, ${`$.${field}`}) from json_each(${json}) where json_extract(value, '$.id') = ${solicitations.id}), ${column})`;

/**
 * Set-based writes: one UPDATE per (from, to) pair whatever the number of reports (a SendGrid POST
 * can carry hundreds), each conditional on the state the reports were judged against.
 */
function changeStatements(db: ShardDb, changes: Change[]): BatchItem<"sqlite">[] {
  const groups = groupBy(changes, (c) => `${c.from}>${c.to}`);
  const now = nowIso();
  return [...groups.values()].map((group) => {
    const json = JSON.stringify(group);
    return db
      .update(solicitations)
      .set({
        status: group[0]!.to,
        deliveredAt: fromChanges(json, "deliveredAt", solicitations.deliveredAt),
        failureReason: fromChanges(json, "failureReason", solicitations.failureReason),
        updatedAt: now,
      })
      .where(
        and(
          sql`${solicitations.id} in (select json_extract(value, '$.id') from json_each(${json}))`,
          eq(solicitations.status, group[0]!.from),
        ),
      );
  });
}

/**
 * Applies verified delivery reports. Each moves its solicitation (found by provider and
 * providerMessageId, within the tenant the URL names, if any) along SOLICITATION_MOVES; a report
 * the state table does not allow (a duplicate, or out of order) changes nothing. A bounce or a spam
 * complaint suppresses the contact once, audited, with contact.suppressed.
 */
async function deliveryWrites(db: ShardDb, events: DeliveryEvent[], tenantId: string | null, w: Writes) {
  if (!events.length) return 0;
  const rows = await db
    .select({ s: solicitations, contactSuppressed: sql<number>`${contacts.isSuppressed}`.as("contact_suppressed") })
    .from(solicitations)
    .innerJoin(contacts, eq(contacts.id, solicitations.contactId))
    .where(
      and(
        inJson(solicitations.providerMessageId, [...new Set(events.map((e) => e.providerMessageId))]),
        tenantId ? eq(solicitations.tenantId, tenantId) : undefined,
      ),
    );
  const byMessage = new Map(rows.map((r) => [`${r.s.provider}:${r.s.providerMessageId}`, r]));
  for (const r of await resolveLostAnswers(db, events, byMessage, tenantId, w))
    byMessage.set(`${r.s.provider}:${r.s.providerMessageId}`, r);
  const resolvedCount = w.statements.length;
  const changes = new Map<string, Change>();
  const suppressed = new Set<string>();
  let applied = 0;
  for (const ev of events) {
    const hit = byMessage.get(`${ev.provider}:${ev.providerMessageId}`);
    if (!hit) continue;
    const s = hit.s;
    const ctx = { db, tenantId: s.tenantId };
    const move = MOVE_OF[ev.status];
    const change = changes.get(s.id) ?? { id: s.id, from: s.status, to: s.status };
    if (canMove(move, change.to)) {
      change.to = STATUS_AFTER[move];
      if (change.to === "DELIVERED") change.deliveredAt = ev.occurredAt;
      else change.failureReason = ev.reason ?? ev.status;
      changes.set(s.id, change);
      const type = EVENT_OF[move];
      if (type)
        w.events.push(
          eventStatement(ctx, type, {
            solicitationId: s.id,
            contactId: s.contactId,
            channel: s.channel,
            provider: ev.provider,
            reason: ev.reason ?? null,
            occurredAt: ev.occurredAt,
          }),
        );
      applied++;
    }
    if (
      (ev.status === "bounced" || ev.status === "complained") &&
      !hit.contactSuppressed &&
      !suppressed.has(s.contactId)
    ) {
      suppressed.add(s.contactId);
      const reason = `${s.channel}_${ev.status === "bounced" ? "bounced" : "complaint"}`;
      const now = nowIso();
      w.statements.push(
        db
          .update(contacts)
          .set({ isSuppressed: true, suppressedAt: now, suppressionReason: reason, updatedAt: now })
          .where(
            and(eq(contacts.id, s.contactId), eq(contacts.tenantId, s.tenantId), eq(contacts.isSuppressed, false)),
          ),
        auditStatement(auditSource(db, ev.provider), {
          tenantId: s.tenantId,
          action: "contact.suppressed",
          resourceType: "contact",
          resourceId: s.contactId,
          nextState: { isSuppressed: true, suppressionReason: reason },
          metadata: { solicitationId: s.id, provider: ev.provider },
        }),
      );
      w.events.push(eventStatement(ctx, "contact.suppressed", { contactId: s.contactId, suppressedAt: now, reason }));
    }
  }
  // after the lost answers' SENT (pushed first above), before the suppressions
  w.statements.splice(
    resolvedCount,
    0,
    ...changeStatements(
      db,
      [...changes.values()].filter((c) => c.from !== c.to),
    ),
  );
  return applied;
}

/**
 * Crash truth (docs/sending.md): a report that names a message id we never recorded, but carries our
 * solicitation id (SendGrid custom_args, SES tags), is the provider telling us it accepted a send
 * whose answer was lost: the solicitation is PENDING with a claim for this provider (the consumer
 * died mid-call), or SENT with an unknown outcome (reconciled by the stale sweep). It is recorded
 * SENT with the provider's message id first (with the one `solicitation.sent`), then the report
 * applies as usual. A solicitation never handed to this provider (no claim) is not touched.
 */
async function resolveLostAnswers(
  db: ShardDb,
  events: DeliveryEvent[],
  known: Map<string, unknown>,
  tenantId: string | null,
  w: Writes,
) {
  const unmatched = new Map<string, DeliveryEvent>();
  for (const e of events)
    if (e.solicitationId && !known.has(`${e.provider}:${e.providerMessageId}`) && !unmatched.has(e.solicitationId))
      unmatched.set(e.solicitationId, e);
  if (!unmatched.size) return [];
  const rows = await db
    .select({
      s: solicitations,
      contactSuppressed: sql<number>`${contacts.isSuppressed}`.as("contact_suppressed"),
      claimProvider: sendRecords.provider,
    })
    .from(solicitations)
    .innerJoin(contacts, eq(contacts.id, solicitations.contactId))
    .innerJoin(sendRecords, eq(sendRecords.solicitationId, solicitations.id))
    .where(
      and(
        inJson(solicitations.id, [...unmatched.keys()]),
        isNull(sendRecords.providerMessageId),
        or(eq(solicitations.status, "PENDING"), eq(solicitations.deliveryOutcome, "unknown")),
        tenantId ? eq(solicitations.tenantId, tenantId) : undefined,
      ),
    );
  const out: typeof rows = [];
  const now = nowIso();
  for (const r of rows) {
    const ev = unmatched.get(r.s.id)!;
    // a claim names the provider it went to ("pending": a claim from before claims did)
    if (r.claimProvider !== ev.provider && r.claimProvider !== "pending") continue;
    const sentAt = r.s.sentAt ?? ev.occurredAt;
    w.statements.push(
      db
        .update(solicitations)
        .set({
          status: "SENT",
          provider: ev.provider,
          providerMessageId: ev.providerMessageId,
          sentAt,
          deliveryOutcome: null,
          updatedAt: now,
        })
        .where(
          and(
            eq(solicitations.id, r.s.id),
            or(eq(solicitations.status, "PENDING"), eq(solicitations.deliveryOutcome, "unknown")),
          ),
        ),
      db
        .update(sendRecords)
        .set({ provider: ev.provider, providerMessageId: ev.providerMessageId })
        .where(and(eq(sendRecords.solicitationId, r.s.id), isNull(sendRecords.providerMessageId))),
    );
    if (r.s.status === "PENDING") {
      w.events.push(
        sentEvent(db, r.s.tenantId, {
          solicitationId: r.s.id,
          locationId: r.s.locationId,
          contactId: r.s.contactId,
          campaignId: r.s.campaignId,
          channel: r.s.channel,
          status: "SENT",
          provider: ev.provider,
          providerMessageId: ev.providerMessageId,
          reconciled: true,
          ...causeOf(r.s.metadata),
        }),
      );
    }
    out.push({
      ...r,
      s: {
        ...r.s,
        status: "SENT",
        provider: ev.provider,
        providerMessageId: ev.providerMessageId,
        deliveryOutcome: null,
      },
    });
  }
  return out;
}

/**
 * An inbound STOP (or UNSUBSCRIBE, CANCEL, END, QUIT, OPT OUT, REVOKE, STOPALL) revokes the
 * consent of the channel it came on (source "inbound_stop"), audited, for every contact with that
 * number: in the tenant the URL names, else in every tenant (a platform number is shared, and
 * over-honouring an opt-out is the safe side). A contact already revoked on that channel is left alone.
 */
// qualified by hand: drizzle writes columns inside sql`` unqualified in a single-table select,
// where "id" would resolve to the subquery's own table
const contactsId = sql.raw(`"contacts"."id"`);

async function stopWrites(db: ShardDb, inbound: InboundMessage[], tenantId: string | null, w: Writes) {
  const stops = inbound.filter((m) => isStopKeyword(m.body));
  let revoked = 0;
  for (const m of stops) {
    const matches = await db
      .select({
        id: contacts.id,
        tenantId: contacts.tenantId,
        latest: sql<
          string | null
        >`(select ${consentRecords.status} from ${consentRecords} where ${consentRecords.contactId} = ${contactsId}
          and ${consentRecords.channel} = ${m.channel} order by ${consentRecords.seq} desc limit 1)`.as(
          "latest_status",
        ),
      })
      .from(contacts)
      .where(and(eq(contacts.phone, m.from), tenantId ? eq(contacts.tenantId, tenantId) : undefined));
    for (const c of matches) {
      if (c.latest === "revoked") continue;
      const ctx = { db, tenantId: c.tenantId };
      const { row, statements } = consentRecordStatements(ctx, c.id, {
        channel: m.channel,
        status: "revoked",
        source: "inbound_stop",
        ipAddress: null,
        userAgent: null,
      });
      w.statements.push(
        ...statements,
        auditStatement(auditSource(db, m.provider), {
          tenantId: c.tenantId,
          action: "consent.revoked",
          resourceType: "consent_record",
          resourceId: row.id,
          nextState: { contactId: c.id, channel: m.channel, status: "revoked", source: "inbound_stop" },
          metadata: {
            provider: m.provider,
            providerMessageId: m.providerMessageId ?? null,
            keyword: m.body.trim().slice(0, 20),
          },
        }),
      );
      revoked++;
    }
  }
  return revoked;
}

/**
 * Applies a verified webhook's reports and inbound messages: on the shard of the tenant the URL
 * names, else on every shard (a platform sender's reports and STOPs may concern any tenant), one D1
 * batch per shard.
 */
export async function applyProviderCallback(
  env: Env,
  defer: (p: Promise<unknown>) => void,
  outcome: Extract<WebhookOutcome, { verified: true }>,
  tenantId: string | null,
) {
  const shards = tenantId ? [await tenantDb(env, tenantId)] : allShards(env).map((s) => s.db);
  const results = await Promise.all(shards.map((db) => applyWebhook(db, env, defer, outcome, tenantId)));
  return {
    received: outcome.events.length + outcome.inbound.length,
    applied: results.reduce((n, r) => n + r.applied, 0),
    consentRevoked: results.reduce((n, r) => n + r.consentRevoked, 0),
  };
}

/** Applies a verified webhook's reports and inbound messages on one shard, in one D1 batch. */
export async function applyWebhook(
  db: ShardDb,
  env: Env,
  defer: (p: Promise<unknown>) => void,
  outcome: Extract<WebhookOutcome, { verified: true }>,
  tenantId: string | null,
) {
  const w: Writes = { statements: [], events: [] };
  const applied = await deliveryWrites(db, outcome.events, tenantId, w);
  const revoked = await stopWrites(db, outcome.inbound, tenantId, w);
  await commit({ db, env, defer }, w.statements, w.events);
  return { received: outcome.events.length + outcome.inbound.length, applied, consentRevoked: revoked };
}

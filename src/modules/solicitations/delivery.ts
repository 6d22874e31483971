import { eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ShardDb } from "../../db/client";
import { contacts, type MessageChannel, sendRecords, solicitations } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { backoffSeconds } from "../../lib/backoff";
import { groupBy } from "../../lib/collections";
import { commit, type PendingEvent } from "../../lib/commit";
import { eventStatement } from "../../lib/events";
import { log } from "../../lib/log";
import { nowIso } from "../../lib/time";
import { resolveProviders } from "../../providers/messaging/resolve";
import {
  type FetchLike,
  type MessageProvider,
  type OutgoingMessage,
  ProviderError,
} from "../../providers/messaging/types";
import { COMPLIANCE_DEFAULTS } from "../compliance/schemas";
import { mintUnsubscribeToken } from "../links/tokens";
import { withEmailFooter } from "../white-label/render";
import { publicBaseUrlOf } from "../white-label/resolve";
import { causeOf } from "./cause";
import { type DeliveryData, loadDeliveryData } from "./delivery-data";
import { buildMessage, DEFAULT_TEMPLATES, linksFor, pickBinding } from "./message";
import { evaluateAtSend } from "./policy";
import type { SendMessage } from "./queue";
import { sentEvent } from "./sent-event";
import { moveStatement } from "./states";

/** Attempts before a transient failure becomes FAILED (wrangler.toml max_retries is 5: one to spare). */
export const MAX_SEND_ATTEMPTS = 5;
const CONCURRENCY = 10;

export interface DeliveryDeps {
  /** the fetch provider clients use; tests pass a stand-in */
  fetch?: FetchLike;
  now?: () => Date;
}

type Solicitation = DeliveryData["solicitations"] extends Map<string, infer S> ? S : never;
type Outcome =
  | { kind: "ack" }
  | { kind: "retry"; delaySeconds: number }
  | { kind: "write"; statements: BatchItem<"sqlite">[]; events: PendingEvent[]; receipt?: Receipt; failed?: true };

/** What a provider accepted, to be written onto the send's claim before anything else. */
interface Receipt {
  solicitationId: string;
  provider: string;
  providerMessageId: string;
}

interface Prepared {
  s: Solicitation;
  message: OutgoingMessage;
}

const ack: Outcome = { kind: "ack" };

function templateFor(s: Solicitation, d: DeliveryData, locale: string | null, now: string) {
  const variant = s.experimentId
    ? d.experiments.get(s.experimentId)?.variants.find((v) => v.id === s.variantId)
    : undefined;
  for (const id of [variant?.templateId, s.templateId]) {
    const t = id ? d.approved.get(id) : undefined;
    if (t && t.tenantId === s.tenantId) return t;
  }
  if (s.campaignId) {
    const binding = pickBinding(d.bindings.get(s.campaignId) ?? [], {
      channel: s.channel,
      locale,
      now,
      usable: (id) => d.approved.get(id)?.tenantId === s.tenantId,
    });
    if (binding) return d.approved.get(binding.templateId)!;
  }
  return DEFAULT_TEMPLATES[s.channel];
}

const addressOf = (c: { email: string | null; phone: string | null }, channel: MessageChannel) =>
  channel === "email" ? c.email : c.phone;

/**
 * Delivers one batch of SENDS messages. Per message: skip what is no longer PENDING; re-check the
 * policy (pause, suppression, address, consent); render; claim the send record (insert-or-nothing:
 * a redelivered or duplicate message finds the claim and never sends again); call the provider;
 * record SENT, or retry a transient error with backoff, or record FAILED.
 */
export async function deliverSends(
  batch: MessageBatch<unknown>,
  env: Env,
  db: ShardDb,
  exec: Pick<ExecutionContext, "waitUntil">,
  deps: DeliveryDeps = {},
): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const ids = [
    ...new Set(
      batch.messages
        .map((m) => (m.body as SendMessage)?.solicitationId)
        .filter((id): id is string => typeof id === "string"),
    ),
  ];
  const tenantIds = [
    ...new Set(
      batch.messages.map((m) => (m.body as SendMessage)?.tenantId).filter((t): t is string => typeof t === "string"),
    ),
  ];
  const d = ids.length ? await loadDeliveryData(db, ids, controlDb(env), tenantIds) : null;
  const defer = (p: Promise<unknown>) => exec.waitUntil(p);
  const providerFor = await resolveProviders(
    db,
    env,
    [...new Set([...(d?.solicitations.values() ?? [])].map((s) => s.tenantId))],
    deps.fetch,
  );

  // 1. decide per solicitation: nothing to do, blocked now, or a message to send
  const outcomes = new Map<string, Outcome>();
  const toSend: Prepared[] = [];
  const unsubscribeTokens = new Map(
    await Promise.all(
      [...(d?.solicitations.values() ?? [])].map(
        async (s) =>
          [
            s.id,
            await mintUnsubscribeToken(env.JWT_SECRET!, {
              tenantId: s.tenantId,
              contactId: s.contactId,
              channel: s.channel,
              solicitationId: s.id,
            }),
          ] as const,
      ),
    ),
  );
  for (const id of ids) {
    const s = d!.solicitations.get(id);
    if (s?.status !== "PENDING") {
      outcomes.set(id, ack);
      continue;
    }
    const ctx = { db, tenantId: s.tenantId };
    const claim = d!.claims.get(id);
    if (claim) {
      // sent before, but the result was not recorded (the isolate died in between): record it now;
      // a claim without a message id is an interrupted send whose outcome is unknown: never resend
      outcomes.set(
        id,
        claim.providerMessageId
          ? sentOutcome(db, ctx, s, claim.provider, claim.providerMessageId, nowIso(now), false)
          : ack,
      );
      continue;
    }
    const contact = d!.contacts.get(s.contactId);
    const decision = evaluateAtSend({
      tenant: { isActive: d!.tenantActive.get(s.tenantId) ?? false },
      contact: contact ?? { isSuppressed: true, email: null, phone: null },
      consent: d!.consent.get(s.contactId) ?? {},
      compliance: d!.consentRules.get(s.tenantId) ?? COMPLIANCE_DEFAULTS,
      channel: s.channel,
    });
    if (!decision.allowed) {
      outcomes.set(id, {
        kind: "write",
        statements: [
          moveStatement(db, id, "blockAtSend", { blockedReason: decision.blockedReason, updatedAt: nowIso(now) }),
        ],
        events: [
          eventStatement(ctx, "solicitation.blocked", {
            solicitationId: id,
            contactId: s.contactId,
            blockedReason: decision.blockedReason,
            atSend: true,
            ...causeOf(s.metadata),
          }),
        ],
      });
      continue;
    }
    const location = d!.locations.get(s.locationId);
    const unsubscribe = unsubscribeTokens.get(id)!;
    const campaign = s.campaignId ? d!.campaigns.get(s.campaignId) : undefined;
    // the tenant's white label: links on its custom hostname, the agency's footer on emails
    const whiteLabel = d!.whiteLabels.get(s.tenantId);
    try {
      const message = buildMessage({
        tenantId: s.tenantId,
        solicitationId: id,
        channel: s.channel,
        to: addressOf(contact!, s.channel)!,
        template: templateFor(s, d!, contact!.locale, nowIso(now)),
        contact: contact!,
        locationName: location?.name ?? "",
        brandName: location?.brandName ?? "",
        variables: d!.variables.get(s.locationId) ?? {},
        links: linksFor(publicBaseUrlOf(env, whiteLabel), s.shortLinkToken, unsubscribe),
        whatsappTemplate: s.metadata.whatsappTemplate ?? campaign?.metadata.whatsappTemplate,
      });
      toSend.push({
        s,
        message: s.channel === "email" && whiteLabel ? withEmailFooter(message, whiteLabel.brand) : message,
      });
    } catch (e) {
      outcomes.set(id, failedOutcome(db, ctx, s, `render: ${String((e as Error).message ?? e)}`, nowIso(now)));
    }
  }

  // 2. claim the send records of everything about to go out, in one statement, each with the name
  // of the provider it goes to (what an interrupted send is reconciled against: docs/sending.md)
  const providers = new Map<string, MessageProvider>();
  for (const p of toSend) providers.set(p.s.id, await providerFor(p.s.tenantId, p.s.channel));
  const claimed = await claimSends(
    db,
    toSend.map((p) => ({ id: p.s.id, tenantId: p.s.tenantId, provider: providers.get(p.s.id)!.name })),
    nowIso(now),
  );

  // 3. send: a provider that takes many messages gets its whole share of the batch in one call (the
  // outbox: every tenant's that has no provider); others a few at a time. Each answer is written
  // onto its claim as it comes (a receipt, a refusal), not after the batch: a crash then leaves
  // unknown only the calls that were in flight.
  const attempts = new Map(batch.messages.map((m) => [(m.body as SendMessage)?.solicitationId, m.attempts]));
  const attemptOf = (s: Solicitation) => attempts.get(s.id) ?? 1;
  const settle = (o: Outcome) => settleNow(db, env, defer, o);
  for (const p of toSend) if (!claimed.has(p.s.id)) outcomes.set(p.s.id, ack);
  const groups = groupBy(
    toSend.filter((p) => claimed.has(p.s.id)),
    (p) => providers.get(p.s.id)!,
  );
  const one: Prepared[] = [];
  for (const [provider, group] of groups) {
    if (!provider.sendMany || group.length === 1) {
      one.push(...group);
      continue;
    }
    let sent: Outcome[];
    try {
      const receipts = await provider.sendMany(group.map((p) => p.message));
      sent = group.map(({ s }, i) =>
        sentOutcome(
          db,
          { db, tenantId: s.tenantId },
          s,
          receipts[i]!.provider,
          receipts[i]!.providerMessageId,
          nowIso(),
          true,
        ),
      );
    } catch (e) {
      for (const { s } of group)
        outcomes.set(s.id, await settle(await unsentOutcome(db, s, provider, e, attemptOf(s), now)));
      continue;
    }
    const recorded = await recordReceipts(
      db,
      sent.flatMap((o) => (o.kind === "write" && o.receipt ? [o.receipt] : [])),
    );
    for (const [i, { s }] of group.entries()) outcomes.set(s.id, recorded ? withoutReceipt(sent[i]!) : sent[i]!);
  }
  let next = 0;
  const worker = async () => {
    while (next < one.length) {
      const { s, message } = one[next++]!;
      outcomes.set(s.id, await settle(await sendOne(db, s, message, providers.get(s.id)!, attemptOf(s), now)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, one.length) }, worker));

  // 4. every result in one batch (with the receipts that could not be written as they came), then
  // ack or retry each message; a redelivery after a failed batch records SENT from the claim
  const writes = [...outcomes.values()].filter((o): o is Extract<Outcome, { kind: "write" }> => o.kind === "write");
  const claimUpdates = writes.flatMap((w) =>
    w.receipt
      ? [
          db
            .update(sendRecords)
            .set({ provider: w.receipt.provider, providerMessageId: w.receipt.providerMessageId })
            .where(eq(sendRecords.solicitationId, w.receipt.solicitationId)),
        ]
      : [],
  );
  await commit(
    { db, env, defer },
    [...claimUpdates, ...writes.flatMap((w) => w.statements)],
    writes.flatMap((w) => w.events),
  );
  for (const m of batch.messages) {
    const o = outcomes.get((m.body as SendMessage)?.solicitationId);
    if (o?.kind === "retry") m.retry({ delaySeconds: o.delaySeconds });
    else m.ack();
  }
}

/** One statement for all receipts, tried twice; false when it could not be written (the caller folds it into its batch). */
async function recordReceipts(db: ShardDb, receipts: Receipt[]): Promise<boolean> {
  if (!receipts.length) return true;
  const statement = sql`update ${sendRecords} set provider = json_extract(value, '$.provider'), provider_message_id = json_extract(value, '$.providerMessageId')
    from json_each(${JSON.stringify(receipts)}) where ${sendRecords.solicitationId} = json_extract(value, '$.solicitationId')`;
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      await db.run(statement);
      return true;
    } catch (err) {
      log.warn("recording send receipts failed", { attempt, count: receipts.length, error: String(err) });
    }
  }
  return false;
}

/** Inserts the claims that do not exist yet; returns the ids this call claimed. */
async function claimSends(
  db: ShardDb,
  claims: { id: string; tenantId: string; provider: string }[],
  now: string,
): Promise<Set<string>> {
  if (!claims.length) return new Set();
  // "where true" keeps SQLite from reading ON CONFLICT as part of the SELECT
  const rows = await db
    .insert(sendRecords)
    .select(
      sql`select json_extract(value, '$.id'), json_extract(value, '$.tenantId'), json_extract(value, '$.provider'), null, ${now} from json_each(${JSON.stringify(claims)}) where true`,
    )
    .onConflictDoNothing()
    .returning({ id: sendRecords.solicitationId });
  return new Set(rows.map((r) => r.id));
}

async function sendOne(
  db: ShardDb,
  s: Solicitation,
  message: OutgoingMessage,
  provider: MessageProvider,
  attempt: number,
  now: Date,
): Promise<Outcome> {
  let sent: Outcome;
  try {
    const receipt = await provider.send(message);
    sent = sentOutcome(
      db,
      { db, tenantId: s.tenantId },
      s,
      receipt.provider,
      receipt.providerMessageId,
      nowIso(),
      true,
    );
  } catch (e) {
    return unsentOutcome(db, s, provider, e, attempt, now);
  }
  // the receipt onto the claim right away; should that fail, it goes with the batch's results
  return (await recordReceipts(db, [(sent as Extract<Outcome, { kind: "write" }>).receipt!]))
    ? withoutReceipt(sent)
    : sent;
}

const withoutReceipt = (o: Outcome): Outcome => (o.kind === "write" ? { ...o, receipt: undefined } : o);

/**
 * A refusal is written as it comes (FAILED with its event), like a receipt, so a crash later in
 * the batch cannot leave a refused message looking like one whose outcome is unknown. Anything
 * else waits for the batch's one write. Should this write fail, the outcome goes with the batch.
 */
async function settleNow(db: ShardDb, env: Env, defer: (p: Promise<unknown>) => void, o: Outcome): Promise<Outcome> {
  if (o.kind !== "write" || o.receipt || !o.failed) return o;
  try {
    await commit({ db, env, defer }, o.statements, o.events);
    return ack;
  } catch (err) {
    log.warn("recording a refused send failed; left to the batch", { error: String(err) });
    return o;
  }
}

/** A provider refused or failed: retry a transient error with backoff (attempts left), else FAILED. */
async function unsentOutcome(
  db: ShardDb,
  s: Solicitation,
  provider: MessageProvider,
  e: unknown,
  attempt: number,
  now: Date,
): Promise<Outcome> {
  const reason = `${provider.name}: ${e instanceof Error ? e.message : String(e)}`.slice(0, 1000);
  const transient = !(e instanceof ProviderError) || e.retryable;
  if (transient && attempt < MAX_SEND_ATTEMPTS) {
    // nothing was accepted: free the claim so the retry can send, and keep the last error visible
    try {
      await db.batch([
        db.delete(sendRecords).where(eq(sendRecords.solicitationId, s.id)),
        db.update(solicitations).set({ failureReason: reason }).where(eq(solicitations.id, s.id)),
      ]);
    } catch (err) {
      // the claim stays: the retry will not send again (unknown outcome), and the stale sweep fails it
      // with a reason; the other messages of the batch keep their results
      log.warn("could not release a send claim", { solicitationId: s.id, error: String(err) });
    }
    return { kind: "retry", delaySeconds: backoffSeconds(attempt) };
  }
  return failedOutcome(
    db,
    { db, tenantId: s.tenantId },
    s,
    transient ? `${reason} (after ${attempt} attempts)` : reason,
    nowIso(now),
  );
}

function sentOutcome(
  db: ShardDb,
  ctx: { db: ShardDb; tenantId: string },
  s: Solicitation,
  provider: string,
  providerMessageId: string,
  at: string,
  recordClaim: boolean,
): Outcome {
  return {
    kind: "write",
    statements: [
      moveStatement(db, s.id, "send", { provider, providerMessageId, sentAt: at, failureReason: null, updatedAt: at }),
      // a send is contact activity: retention counts from it
      db
        .update(contacts)
        .set({ lastActivityAt: at })
        .where(sql`${contacts.id} = ${s.contactId} and ${contacts.anonymizedAt} is null`),
    ],
    events: [
      sentEvent(db, ctx.tenantId, {
        solicitationId: s.id,
        locationId: s.locationId,
        contactId: s.contactId,
        channel: s.channel,
        status: "SENT",
        provider,
        providerMessageId,
        campaignId: s.campaignId,
        ...causeOf(s.metadata),
      }),
    ],
    ...(recordClaim ? { receipt: { solicitationId: s.id, provider, providerMessageId } } : {}),
  };
}

function failedOutcome(
  db: ShardDb,
  ctx: { db: ShardDb; tenantId: string },
  s: Solicitation,
  reason: string,
  at: string,
): Outcome {
  return {
    kind: "write",
    failed: true,
    statements: [moveStatement(db, s.id, "failSend", { failureReason: reason, updatedAt: at })],
    events: [
      eventStatement(ctx, "solicitation.failed", {
        solicitationId: s.id,
        contactId: s.contactId,
        channel: s.channel,
        reason,
        ...causeOf(s.metadata),
      }),
    ],
  };
}

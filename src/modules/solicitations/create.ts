import type { BatchItem } from "drizzle-orm/batch";
import { type BlockedReason, domainEvents, type MessageChannel, solicitations } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit, handOffEvents, type PendingEvent } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { conflict, type ValidationIssue } from "../../lib/errors";
import type { EventEnvelope, EventType } from "../../lib/events";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { assignVariant } from "../experiments/assignment";
import { mintLinkToken } from "../links/tokens";
import { jsonInsertStatements } from "./bulk-insert";
import { capGuardStatement, isCapExceeded } from "./cap-guard";
import { causeOf } from "./cause";
import { loadPolicyData, type PolicyData } from "./inputs";
import { evaluate, recipientTimeZone } from "./policy";
import { enqueueSends } from "./queue";
import { type SolicitationDto, type SolicitationRow, toSolicitation } from "./schemas";

/** One send request, from any path: single, campaign, bulk, sequence step, automation. */
export interface SolicitationRequest {
  contactId: string;
  locationId: string;
  channel: MessageChannel;
  campaignId?: string | null;
  templateId?: string | null;
  destinationUrl?: string | null;
  metadata?: Record<string, unknown>;
  /** stored as Solicitation.idempotencyKey; defaults to the solicitation id */
  idempotencyKey?: string;
  sequenceStepIndex?: number | null;
}

export type SolicitationOutcome =
  | { ok: true; solicitation: SolicitationDto }
  /** a reference that is not this tenant's (unknown contact, location, campaign or template): nothing was created */
  | { ok: false; issue: ValidationIssue };

export interface CreateOptions {
  /** the audit row's action and resource; default solicitation.created on the solicitation (or the batch) */
  audit?: { action: string; resourceType: string; resourceId: string; metadata?: Record<string, unknown> };
  /** statements and events committed in the LAST chunk's batch (an idempotency record, campaign.sent) */
  finalize?: (
    outcomes: SolicitationOutcome[],
  ) => Promise<{ statements?: BatchItem<"sqlite">[]; events?: PendingEvent[] }>;
  now?: Date;
}

export interface CreateResult {
  outcomes: SolicitationOutcome[];
  queued: number;
  blocked: number;
  failed: number;
}

/** Solicitations committed per D1 batch; each batch is followed by its queue messages. */
export const CHUNK_ROWS = 500;

function checkRefs(r: SolicitationRequest, d: PolicyData): ValidationIssue | null {
  if (!d.contacts.has(r.contactId)) return { path: "contactId", message: "Unknown contact" };
  if (!d.locations.has(r.locationId)) return { path: "locationId", message: "Unknown location" };
  if (r.campaignId && !d.campaigns.has(r.campaignId)) return { path: "campaignId", message: "Unknown campaign" };
  if (r.templateId) {
    const t = d.templates.get(r.templateId);
    if (!t) return { path: "templateId", message: "Unknown template" };
    if (t.status === "archived") return { path: "templateId", message: "The template is archived" };
    if (t.channel !== r.channel)
      return { path: "templateId", message: `The template is for ${t.channel}, not ${r.channel}` };
  }
  return null;
}

function eventOf(ctx: ServiceContext, row: SolicitationRow): EventEnvelope {
  const type: EventType = row.status === "BLOCKED" ? "solicitation.blocked" : "solicitation.created";
  return {
    id: `evt_${newId()}`,
    type,
    tenantId: ctx.tenantId,
    occurredAt: row.createdAt,
    data: {
      solicitationId: row.id,
      contactId: row.contactId,
      locationId: row.locationId,
      campaignId: row.campaignId,
      channel: row.channel,
      status: row.status,
      ...(row.blockedReason ? { blockedReason: row.blockedReason } : {}),
      ...causeOf(row.metadata),
    },
  };
}

/** One decision pass over requests[from..]: each request's outcome (a row to write, or an issue), in order. */
interface Pass {
  data: PolicyData;
  outcomes: (SolicitationOutcome | SolicitationRow)[];
  rows: SolicitationRow[];
  /** for rows[i], the index in `requests` it answers */
  requestOf: number[];
}

async function decide(ctx: ServiceContext, requests: SolicitationRequest[], from: number, now: Date): Promise<Pass> {
  const createdAt = nowIso(now);
  const pending = requests.slice(from);
  const data = await loadPolicyData(
    ctx,
    {
      contactIds: pending.map((r) => r.contactId),
      locationIds: pending.map((r) => r.locationId),
      campaignIds: pending.map((r) => r.campaignId ?? ""),
      templateIds: pending.map((r) => r.templateId ?? ""),
    },
    now,
  );
  const secret = ctx.env.JWT_SECRET!;
  const rows: SolicitationRow[] = [];
  const requestOf: number[] = [];
  const outcomes: (SolicitationOutcome | SolicitationRow)[] = [];
  const tokens: Promise<void>[] = [];
  for (const [i, r] of pending.entries()) {
    const issue = checkRefs(r, data);
    if (issue) {
      outcomes.push({ ok: false, issue });
      continue;
    }
    const contact = data.contacts.get(r.contactId)!;
    const recent = data.recentSends.get(r.contactId) ?? [];
    const decision = evaluate({
      tenant: { isActive: data.tenantActive },
      contact,
      consent: data.consent.get(r.contactId) ?? {},
      compliance: data.compliance,
      channel: r.channel,
      recipientTimeZone: recipientTimeZone(contact.timezone, data.locations.get(r.locationId)!.timezone),
      recentSends: recent,
      now,
    });
    const blockedReason: BlockedReason | null = decision.allowed ? null : decision.blockedReason;
    if (decision.allowed) data.recentSends.set(r.contactId, [...recent, createdAt]);
    const experiment = r.campaignId ? data.experiments.get(r.campaignId) : undefined;
    const variant = experiment ? assignVariant(experiment, r.contactId) : null;
    const id = newId();
    const destination = r.destinationUrl
      ? "custom"
      : (r.campaignId && data.campaigns.get(r.campaignId)?.reviewDestination) || "auto";
    const row: SolicitationRow = {
      id,
      tenantId: ctx.tenantId,
      locationId: r.locationId,
      contactId: r.contactId,
      campaignId: r.campaignId ?? null,
      templateId: r.templateId ?? null,
      experimentId: experiment?.id ?? null,
      variantId: variant?.id ?? null,
      sequenceStepIndex: r.sequenceStepIndex ?? null,
      channel: r.channel,
      status: blockedReason ? "BLOCKED" : "PENDING",
      shortLinkToken: "",
      destinationUrl: r.destinationUrl ?? null,
      blockedReason,
      provider: null,
      providerMessageId: null,
      failureReason: null,
      deliveryOutcome: null,
      sentAt: null,
      deliveredAt: null,
      clickedAt: null,
      convertedAt: null,
      idempotencyKey: r.idempotencyKey ?? id,
      metadata: r.metadata ?? {},
      createdAt,
      updatedAt: createdAt,
    };
    rows.push(row);
    requestOf.push(from + i);
    outcomes.push(row);
    tokens.push(
      mintLinkToken(secret, { solicitationId: id, tenantId: ctx.tenantId, locationId: r.locationId, destination }).then(
        (t) => {
          row.shortLinkToken = t;
        },
      ),
    );
  }
  // signed all at once: awaiting 5,000 HMACs one by one costs seconds of round trips into WebCrypto
  await Promise.all(tokens);
  return { data, outcomes, rows, requestOf };
}

/** Decision passes per call at most: each retry follows a batch another request beat to a contact's last cap slot. */
export const MAX_CAP_ATTEMPTS = 10;

const answer = (x: SolicitationOutcome | SolicitationRow): SolicitationOutcome =>
  "ok" in x ? x : { ok: true, solicitation: toSolicitation(x) };

/**
 * THE entry point of every send path. Loads the policy inputs for all requests in one round trip,
 * checks references, runs the policy for each (earlier allowed requests of the same call count
 * toward the caps of later ones), then writes the solicitations PENDING or BLOCKED with their
 * events and audit row, one D1 batch per chunk, and queues the PENDING ones on SENDS.
 * Each batch starts with the frequency-cap guard (cap-guard.ts): when a concurrent request took a
 * contact's last slot between our read and our write, the batch fails as a whole and the requests
 * from that chunk on are decided again on fresh data (they then come out BLOCKED FREQUENCY_CAP_*).
 * Outcomes come back in request order.
 */
export async function createSolicitations(
  ctx: ServiceContext,
  requests: SolicitationRequest[],
  o: CreateOptions = {},
): Promise<CreateResult> {
  const now = o.now ?? new Date();
  const settled: SolicitationOutcome[] = [];
  const written: SolicitationRow[] = [];
  let chunksDone = 0;
  for (let attempt = 1; ; attempt++) {
    const from = settled.length;
    const pass = await decide(ctx, requests, from, now);
    const final = [...settled, ...pass.outcomes.map(answer)];
    const extra = o.finalize ? await o.finalize(final) : {};
    const single = written.length + pass.rows.length === 1;

    const chunks: SolicitationRow[][] = [];
    for (let i = 0; i < pass.rows.length; i += CHUNK_ROWS) chunks.push(pass.rows.slice(i, i + CHUNK_ROWS));
    if (!chunks.length) chunks.push([]);
    let retryFrom: number | null = null;
    for (const [i, chunk] of chunks.entries()) {
      const last = i === chunks.length - 1;
      const events = chunk.map((row) => eventOf(ctx, row));
      const audit = o.audit ?? {
        action: "solicitation.created",
        resourceType: single ? "solicitation" : "solicitation_batch",
        resourceId: single && chunk[0] ? chunk[0].id : `batch_${newId()}`,
      };
      const guard = capGuardStatement(ctx, chunk, pass.data.compliance, now);
      const statements: BatchItem<"sqlite">[] = [
        ...(guard ? [guard] : []),
        ...jsonInsertStatements(ctx.db, solicitations, chunk),
        ...jsonInsertStatements(
          ctx.db,
          domainEvents,
          events.map((e) => ({ ...e, dispatchedAt: null })),
        ),
        ...(chunk.length
          ? [
              auditStatement(ctx, {
                tenantId: ctx.tenantId,
                action: audit.action,
                resourceType: audit.resourceType,
                resourceId: audit.resourceId,
                metadata: audit.metadata,
                nextState: {
                  chunk: chunksDone + 1,
                  chunks: chunksDone + chunks.length - i,
                  solicitationIds: chunk.map((r) => r.id),
                  blocked: Object.fromEntries(chunk.filter((r) => r.blockedReason).map((r) => [r.id, r.blockedReason])),
                },
              }),
            ]
          : []),
        ...(last ? (extra.statements ?? []) : []),
      ];
      try {
        await commit(ctx, statements, last ? (extra.events ?? []) : []);
      } catch (e) {
        if (!isCapExceeded(e)) throw e;
        if (attempt >= MAX_CAP_ATTEMPTS) throw conflict("Too many concurrent sends to the same contact; retry");
        retryFrom = chunk.length ? pass.requestOf[i * CHUNK_ROWS]! : requests.length;
        break;
      }
      chunksDone++;
      written.push(...chunk);
      handOffEvents(ctx, events);
      await enqueueSends(
        ctx.env,
        chunk.filter((r) => r.status === "PENDING").map((r) => ({ id: r.id, tenantId: ctx.tenantId })),
      );
    }
    if (retryFrom === null) {
      settled.push(...pass.outcomes.map(answer));
      break;
    }
    // requests before the failed chunk are committed (or were refused references): keep their outcomes
    settled.push(...final.slice(from, retryFrom));
  }
  const queued = written.filter((r) => r.status === "PENDING").length;
  return { outcomes: settled, queued, blocked: written.length - queued, failed: requests.length - written.length };
}

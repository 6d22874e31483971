import { causeOf } from "./cause";
import type { BatchItem } from "drizzle-orm/batch";
import { domainEvents, solicitations, type BlockedReason, type MessageChannel } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit, handOffEvents, type PendingEvent } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import type { ValidationIssue } from "../../lib/errors";
import type { EventEnvelope, EventType } from "../../lib/events";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { assignVariant } from "../experiments/assignment";
import { mintLinkToken } from "../links/tokens";
import { jsonInsertStatements } from "./bulk-insert";
import { loadPolicyData, type PolicyData } from "./inputs";
import { evaluate, recipientTimeZone } from "./policy";
import { toSolicitation, type SolicitationDto, type SolicitationRow } from "./schemas";
import { enqueueSends } from "./queue";

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
  finalize?: (outcomes: SolicitationOutcome[]) => Promise<{ statements?: BatchItem<"sqlite">[]; events?: PendingEvent[] }>;
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
    if (t.channel !== r.channel) return { path: "templateId", message: `The template is for ${t.channel}, not ${r.channel}` };
  }
  return null;
}

function eventOf(ctx: ServiceContext, row: SolicitationRow): EventEnvelope {
  const type: EventType = row.status === "BLOCKED" ? "solicitation.blocked" : "solicitation.created";
  return {
    id: `evt_${newId()}`, type, tenantId: ctx.tenantId, occurredAt: row.createdAt,
    data: {
      solicitationId: row.id, contactId: row.contactId, locationId: row.locationId, campaignId: row.campaignId,
      channel: row.channel, status: row.status, ...(row.blockedReason ? { blockedReason: row.blockedReason } : {}),
      ...causeOf(row.metadata),
    },
  };
}

/**
 * THE entry point of every send path. Loads the policy inputs for all requests in one round trip,
 * checks references, runs the policy for each (earlier allowed requests of the same call count
 * toward the caps of later ones), then writes the solicitations PENDING or BLOCKED with their
 * events and audit row, one D1 batch per chunk, and queues the PENDING ones on SENDS.
 * Outcomes come back in request order.
 */
export async function createSolicitations(ctx: ServiceContext, requests: SolicitationRequest[], o: CreateOptions = {}): Promise<CreateResult> {
  const now = o.now ?? new Date();
  const createdAt = nowIso(now);
  const data = await loadPolicyData(
    ctx,
    {
      contactIds: requests.map((r) => r.contactId),
      locationIds: requests.map((r) => r.locationId),
      campaignIds: requests.map((r) => r.campaignId ?? ""),
      templateIds: requests.map((r) => r.templateId ?? ""),
    },
    now,
  );
  const secret = ctx.env.JWT_SECRET!;
  const rows: SolicitationRow[] = [];
  const outcomes: (SolicitationOutcome | SolicitationRow)[] = [];
  const tokens: Promise<void>[] = [];
  for (const r of requests) {
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
    const destination = r.destinationUrl ? "custom" : ((r.campaignId && data.campaigns.get(r.campaignId)?.reviewDestination) || "auto");
    const row: SolicitationRow = {
      id, tenantId: ctx.tenantId, locationId: r.locationId, contactId: r.contactId,
      campaignId: r.campaignId ?? null, templateId: r.templateId ?? null,
      experimentId: experiment?.id ?? null, variantId: variant?.id ?? null,
      sequenceStepIndex: r.sequenceStepIndex ?? null, channel: r.channel,
      status: blockedReason ? "BLOCKED" : "PENDING",
      shortLinkToken: "",
      destinationUrl: r.destinationUrl ?? null, blockedReason, provider: null, providerMessageId: null, failureReason: null,
      sentAt: null, deliveredAt: null, clickedAt: null, convertedAt: null,
      idempotencyKey: r.idempotencyKey ?? id, metadata: r.metadata ?? {}, createdAt, updatedAt: createdAt,
    };
    rows.push(row);
    outcomes.push(row);
    tokens.push(mintLinkToken(secret, { solicitationId: id, tenantId: ctx.tenantId, locationId: r.locationId, destination }).then((t) => void (row.shortLinkToken = t)));
  }
  // signed all at once: awaiting 5,000 HMACs one by one costs seconds of round trips into WebCrypto
  await Promise.all(tokens);
  const final: SolicitationOutcome[] = outcomes.map((x) => ("ok" in x ? x : { ok: true, solicitation: toSolicitation(x) }));
  const extra = o.finalize ? await o.finalize(final) : {};

  const chunks: SolicitationRow[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) chunks.push(rows.slice(i, i + CHUNK_ROWS));
  if (!chunks.length) chunks.push([]);
  for (const [i, chunk] of chunks.entries()) {
    const last = i === chunks.length - 1;
    const events = chunk.map((row) => eventOf(ctx, row));
    const audit = o.audit ?? {
      action: "solicitation.created", resourceType: rows.length === 1 ? "solicitation" : "solicitation_batch",
      resourceId: rows.length === 1 ? rows[0]!.id : `batch_${newId()}`,
    };
    const statements: BatchItem<"sqlite">[] = [
      ...jsonInsertStatements(ctx.db, solicitations, chunk),
      ...jsonInsertStatements(ctx.db, domainEvents, events.map((e) => ({ ...e, dispatchedAt: null }))),
      ...(chunk.length
        ? [auditStatement(ctx, {
            tenantId: ctx.tenantId, action: audit.action, resourceType: audit.resourceType, resourceId: audit.resourceId,
            metadata: audit.metadata,
            nextState: {
              chunk: i + 1, chunks: chunks.length,
              solicitationIds: chunk.map((r) => r.id),
              blocked: Object.fromEntries(chunk.filter((r) => r.blockedReason).map((r) => [r.id, r.blockedReason])),
            },
          })]
        : []),
      ...(last ? (extra.statements ?? []) : []),
    ];
    await commit(ctx, statements, last ? (extra.events ?? []) : []);
    handOffEvents(ctx, events);
    await enqueueSends(ctx.env, chunk.filter((r) => r.status === "PENDING").map((r) => r.id));
  }
  const queued = rows.filter((r) => r.status === "PENDING").length;
  return { outcomes: final, queued, blocked: rows.length - queued, failed: requests.length - rows.length };
}

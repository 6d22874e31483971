import { and, count, desc, eq, isNotNull } from "drizzle-orm";
import { contacts, type DeliveryOutcome, type MessageChannel, solicitations } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import type { ServiceContext } from "../../lib/context";
import { sha256Hex } from "../../lib/crypto";
import { conflict, validationError } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { newId } from "../../lib/ids";
import { inJson } from "../../lib/sql";
import { assertLocationRefs } from "../locations/refs";
import { type CreateResult, createSolicitations, type SolicitationRequest } from "../solicitations/create";
import { toSolicitationWithContact, WITH_CONTACT } from "../solicitations/list";
import { usableTemplates } from "../templates/service";
import type { CampaignRow } from "./schemas";
import type { CampaignSendInput } from "./send.schemas";
import { findCampaignRow } from "./service";

/** The campaign a send may use: this tenant's (404), active (409), and the channel one of its own (400). */
export async function sendableCampaign(
  ctx: ServiceContext,
  campaignId: string,
  channel?: MessageChannel,
): Promise<CampaignRow> {
  const campaign = await findCampaignRow(ctx, campaignId);
  if (channel && !campaign.channels.includes(channel)) {
    throw validationError([
      { path: "channel", message: `Not one of the campaign's channels (${campaign.channels.join(", ")})` },
    ]);
  }
  if (!campaign.isActive) throw conflict("The campaign is inactive; activate it before sending");
  return campaign;
}

/** The campaign.sent audit row and event, committed with the send's last chunk. */
export function campaignSentWrites(
  ctx: ServiceContext,
  campaign: CampaignRow,
  sendId: string,
  summary: Record<string, unknown>,
) {
  const data = { campaignId: campaign.id, sendId, ...summary };
  return {
    statements: [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "campaign.sent",
        resourceType: "campaign",
        resourceId: campaign.id,
        nextState: data,
      }),
    ],
    events: [eventStatement(ctx, "campaign.sent", data)],
  };
}

type Counts = Pick<CreateResult, "outcomes"> & { earlier?: { status: string }[] };

/** queued = PENDING when created, blocked = BLOCKED, failed = not created; `earlier` = what a failed call with the same key already wrote. */
const summarize = (r: Counts) => {
  const created = [...r.outcomes.flatMap((o) => (o.ok ? [o.solicitation] : [])), ...(r.earlier ?? [])];
  const queued = created.filter((s) => s.status !== "BLOCKED").length;
  const total = r.outcomes.length + (r.earlier?.length ?? 0);
  return { total, queued, blocked: created.length - queued, failed: total - created.length };
};

/** The send id of a call: from the Idempotency-Key (per campaign), so a retry finds what the failed call wrote. */
const sendIdOf = async (campaignId: string, idempotencyKey?: string) =>
  idempotencyKey ? `send_k${(await sha256Hex(`${campaignId}:${idempotencyKey}`)).slice(0, 24)}` : `send_${newId()}`;

/** Solicitations a previous call with the same send id already created, by their idempotency key. */
async function alreadyCreated(ctx: ServiceContext, campaignId: string, keys: string[]) {
  const rows = await ctx.db
    .select({ key: solicitations.idempotencyKey, status: solicitations.status })
    .from(solicitations)
    .where(
      and(
        eq(solicitations.tenantId, ctx.tenantId),
        eq(solicitations.campaignId, campaignId),
        inJson(solicitations.idempotencyKey, keys),
      ),
    );
  return new Map(rows.map((r) => [r.key!, r]));
}

/** The newest non-suppressed contacts with an address for the channel (email, or a phone for SMS/WhatsApp). */
const eligibleContacts = (ctx: ServiceContext, channel: MessageChannel, limit: number) =>
  ctx.db
    .select({ id: contacts.id })
    .from(contacts)
    .where(
      and(
        eq(contacts.tenantId, ctx.tenantId),
        eq(contacts.isSuppressed, false),
        isNotNull(channel === "email" ? contacts.email : contacts.phone),
      ),
    )
    .orderBy(desc(contacts.createdAt), desc(contacts.id))
    .limit(limit);

/**
 * POST /v1/campaigns/{id}/send: every non-suppressed contact that fits the channel (newest first),
 * or the given contactIds, up to `limit`; each through the policy. Counts are exact: queued =
 * PENDING created, blocked = BLOCKED created, failed = not created (ids that are not this tenant's).
 */
export async function sendCampaign(
  ctx: ServiceContext,
  campaignId: string,
  input: CampaignSendInput,
  idempotencyKey?: string,
) {
  const campaign = await sendableCampaign(ctx, campaignId, input.channel);
  await assertLocationRefs(ctx, [input.locationId]);
  if (input.templateId)
    await usableTemplates(ctx, [{ path: "templateId", templateId: input.templateId, channel: input.channel }]);
  const contactIds = input.contactIds
    ? [...new Set(input.contactIds)].slice(0, input.limit)
    : (await eligibleContacts(ctx, input.channel, input.limit)).map((c) => c.id);
  const sendId = await sendIdOf(campaign.id, idempotencyKey);
  const all: SolicitationRequest[] = contactIds.map((contactId) => ({
    contactId,
    locationId: input.locationId,
    channel: input.channel,
    campaignId: campaign.id,
    templateId: input.templateId ?? null,
    idempotencyKey: `${sendId}:${contactId}`,
  }));
  // a retry after a failure part-way (chunks are committed one by one): the contacts reached keep their solicitation
  const done = idempotencyKey
    ? await alreadyCreated(
        ctx,
        campaign.id,
        all.map((r) => r.idempotencyKey!),
      )
    : new Map();
  const requests = all.filter((r) => !done.has(r.idempotencyKey!));
  const earlier = [...done.values()];
  // everything was written by an earlier call, campaign.sent included (it goes with the last chunk)
  if (done.size && !requests.length) return { ...summarize({ outcomes: [], earlier }), errors: [] };
  const result = await createSolicitations(ctx, requests, {
    audit: {
      action: "solicitation.created",
      resourceType: "campaign_send",
      resourceId: sendId,
      metadata: { campaignId: campaign.id },
    },
    finalize: async (outcomes) =>
      campaignSentWrites(ctx, campaign, sendId, {
        channel: input.channel,
        locationId: input.locationId,
        ...summarize({ outcomes, earlier }),
      }),
  });
  return {
    ...summarize({ outcomes: result.outcomes, earlier }),
    errors: result.outcomes.flatMap((o, i) =>
      o.ok ? [] : [{ contactId: requests[i]!.contactId, reason: o.issue.message }],
    ),
  };
}

/** GET /v1/campaigns/{id}/solicitations: newest first, each with its contact. */
export async function listCampaignSolicitations(
  ctx: ServiceContext,
  campaignId: string,
  query: { limit: number; deliveryOutcome?: DeliveryOutcome },
) {
  const { limit, deliveryOutcome } = query;
  await findCampaignRow(ctx, campaignId);
  const where = and(
    eq(solicitations.tenantId, ctx.tenantId),
    eq(solicitations.campaignId, campaignId),
    deliveryOutcome ? eq(solicitations.deliveryOutcome, deliveryOutcome) : undefined,
  );
  const [rows, total] = await ctx.db.batch([
    ctx.db
      .select(WITH_CONTACT)
      .from(solicitations)
      .leftJoin(contacts, eq(contacts.id, solicitations.contactId))
      .where(where)
      .orderBy(desc(solicitations.createdAt), desc(solicitations.id))
      .limit(limit),
    ctx.db.select({ n: count() }).from(solicitations).where(where),
  ]);
  return {
    data: rows.map(toSolicitationWithContact),
    total: total[0]?.n ?? 0,
  };
}

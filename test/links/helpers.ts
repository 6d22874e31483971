import { env } from "cloudflare:workers";
import { and, asc, eq } from "drizzle-orm";
import { auditEvents, domainEvents, linkClicks, solicitations } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import type { Client } from "../helpers/http";
import { pollUntil } from "../helpers/poll";
import { db } from "../helpers/seed";

export const SECRET = env.JWT_SECRET!;

export async function createLocation(c: Client, fields: Record<string, unknown> = {}) {
  const res = await c.post("/v1/locations", { name: `Store ${newId().slice(0, 6)}`, ...fields });
  if (res.status !== 201) throw new Error(`location: ${res.status} ${res.text}`);
  return res.body as { id: string; tenantId: string; brandId: string; name: string };
}

export async function createContact(c: Client, fields: Record<string, unknown> = {}) {
  const res = await c.post("/v1/contacts", { email: `${newId()}@example.test`, firstName: "Ann", ...fields });
  if (res.status !== 201) throw new Error(`contact: ${res.status} ${res.text}`);
  return res.body as { id: string; email: string | null; phone: string | null };
}

export interface SeededSolicitation {
  id: string;
  token: string;
  unsubscribeToken: string;
}

/** A solicitation row written straight to D1 (the sending module creates them in production). */
export async function seedSolicitation(o: {
  tenantId: string;
  locationId: string;
  contactId: string;
  destination?: string;
  channel?: "email" | "sms" | "whatsapp";
  status?: "PENDING" | "SENT" | "DELIVERED" | "BLOCKED";
  campaignId?: string | null;
  sentAt?: string | null;
  sequenceStepIndex?: number | null;
  destinationUrl?: string | null;
  /** the tenant's shard when it is not the control database's (shardOf(tenant) in test/helpers/seed.ts) */
  db?: ReturnType<typeof db>;
}): Promise<SeededSolicitation> {
  const id = newId();
  const channel = o.channel ?? "email";
  const token = await mintLinkToken(SECRET, {
    solicitationId: id,
    tenantId: o.tenantId,
    locationId: o.locationId,
    destination: o.destination ?? "auto",
  });
  const now = nowIso();
  await (o.db ?? db()).insert(solicitations).values({
    id,
    tenantId: o.tenantId,
    locationId: o.locationId,
    contactId: o.contactId,
    campaignId: o.campaignId ?? null,
    channel,
    status: o.status ?? "SENT",
    shortLinkToken: token,
    destinationUrl: o.destinationUrl ?? null,
    sentAt: o.sentAt === undefined ? now : o.sentAt,
    sequenceStepIndex: o.sequenceStepIndex ?? null,
    idempotencyKey: id,
    metadata: {},
    createdAt: now,
    updatedAt: now,
  });
  const unsubscribeToken = await mintUnsubscribeToken(SECRET, {
    tenantId: o.tenantId,
    contactId: o.contactId,
    channel,
    solicitationId: id,
  });
  return { id, token, unsubscribeToken };
}

export const solicitationRow = (id: string) => db().select().from(solicitations).where(eq(solicitations.id, id)).get();
export const clicksOf = (solicitationId: string) =>
  db()
    .select()
    .from(linkClicks)
    .where(eq(linkClicks.solicitationId, solicitationId))
    .orderBy(asc(linkClicks.clickedAt));
export const eventsOf = (type: string) => db().select().from(domainEvents).where(eq(domainEvents.type, type));
export const auditOf = (resourceId: string, action?: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, resourceId), action ? eq(auditEvents.action, action) : undefined))
    .orderBy(asc(auditEvents.occurredAt));

/**
 * Polls until check() returns a truthy value (queue consumers run asynchronously in the pool), at pollUntil's
 * default step: the work comes with a queue batch (1 s), and a 50 ms step only doubled the reads.
 */
export const eventually = async <T>(
  check: () => Promise<T>,
  timeoutMs = 15_000,
): Promise<Exclude<T, false | null | undefined | "" | 0>> =>
  (await pollUntil(check, Boolean, timeoutMs)) as Exclude<T, false | null | undefined | "" | 0>;

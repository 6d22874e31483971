import { and, desc, eq, sql } from "drizzle-orm";
import type { ShardDb } from "../../db/client";
import { brands, type ConsentChannel, consentRecords, contacts } from "../../db/schema";
import { tenantDb } from "../../db/shards";
import { assertTenantWritable } from "../../db/tenant-fence";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { RequestMeta, ServiceContext } from "../../lib/context";
import { ApiError, conflict } from "../../lib/errors";
import { eventStatement } from "../../lib/events";
import { newId } from "../../lib/ids";
import { jwtSecrets } from "../../lib/jwt";
import { nowIso } from "../../lib/time";
import { stopEnrollmentStatements } from "../sequences/service";
import { type EffectiveBrand, tenantWhiteLabel } from "../white-label/resolve";
import type { PublicContext } from "./service";
import { readUnsubscribeToken, type UnsubscribeClaims } from "./tokens";

/** The channels an unsubscribe link can stop: the message channels. */
const CHANNELS = new Set<string>(["email", "sms", "whatsapp"]);
export const UNSUBSCRIBE_SOURCE = "unsubscribe";
export const RESUBSCRIBE_SOURCE = "resubscribe";

export interface UnsubscribeView {
  channel: ConsentChannel;
  /** the address the link was sent to, masked (j***@example.com, ******1234) */
  address: string | null;
  brand: { name: string; logoUrl: string | null };
  locale: string | null;
  /** the white label of the tenant (colours and footer of the page) */
  whiteLabel: EffectiveBrand;
  subscribed: boolean;
  /** when this link (or another unsubscribe link) stopped the channel; null while subscribed */
  unsubscribedAt: string | null;
}

export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  const local = email.slice(0, at);
  return `${local.slice(0, local.length > 3 ? 2 : 1)}***${email.slice(at)}`;
}

export const maskPhone = (phone: string) => `${"*".repeat(Math.max(0, phone.length - 4))}${phone.slice(-4)}`;

const noLongerActive = () => new ApiError("NOT_FOUND", "This link is no longer active");

/** The tenant-scoped context an unsubscribe acts in: the system actor "unsubscribe", the request's ip and agent. */
const actingContext = (
  ctx: PublicContext,
  claims: UnsubscribeClaims,
  meta: RequestMeta,
  db: ShardDb,
): ServiceContext => ({
  db,
  control: ctx.control,
  env: ctx.env,
  defer: ctx.defer,
  tenantId: claims.tenantId,
  meta,
  actor: { type: "system", name: "unsubscribe" },
});

async function load(ctx: PublicContext, token: string) {
  const claims = await readUnsubscribeToken(jwtSecrets(ctx.env), token);
  if (!claims || !CHANNELS.has(claims.channel)) throw new ApiError("NOT_FOUND", "Link not found");
  // a custom hostname serves only its own tenants' links
  await ctx.admit(claims.tenantId);
  // the tenant's rows on its shard (white-label rows: the control plane)
  const control = ctx.control;
  const db = await tenantDb(ctx.env, claims.tenantId);
  const channel = claims.channel as ConsentChannel;
  // the brand of the solicitation's location, else the tenant's oldest brand
  const brandId = sql`coalesce(
    (select l.brand_id from solicitations s join locations l on l.id = s.location_id where s.id = ${claims.solicitationId} and s.tenant_id = ${claims.tenantId}),
    (select b2.id from brands b2 where b2.tenant_id = ${claims.tenantId} order by b2.created_at, b2.id limit 1))`;
  const wl = await tenantWhiteLabel(control, claims.tenantId);
  if (!wl) throw new ApiError("NOT_FOUND", "Link not found");
  const [contactRows, brandRows, latestRows] = await db.batch([
    db
      .select()
      .from(contacts)
      .where(and(eq(contacts.id, claims.contactId), eq(contacts.tenantId, claims.tenantId))),
    db
      .select({ name: brands.name, logoUrl: brands.logoUrl })
      .from(brands)
      .where(and(eq(brands.tenantId, claims.tenantId), sql`${brands.id} = ${brandId}`)),
    db
      .select({ status: consentRecords.status, source: consentRecords.source, createdAt: consentRecords.createdAt })
      .from(consentRecords)
      .where(
        and(
          eq(consentRecords.contactId, claims.contactId),
          eq(consentRecords.tenantId, claims.tenantId),
          eq(consentRecords.channel, channel),
        ),
      )
      .orderBy(desc(consentRecords.seq))
      .limit(1),
  ]);
  const contact = contactRows[0];
  // an erased contact has nothing left to unsubscribe: the link is dead
  if (!contact || contact.anonymizedAt) throw noLongerActive();
  return {
    claims,
    channel,
    contact,
    brand: brandRows[0] ?? { name: "", logoUrl: null },
    latest: latestRows[0] ?? null,
    whiteLabel: wl.brand,
    db,
  };
}

type Loaded = Awaited<ReturnType<typeof load>>;

const isUnsubscribed = (l: Loaded) => l.latest?.status === "revoked";

function view(l: Loaded): UnsubscribeView {
  const address =
    l.channel === "email"
      ? l.contact.email
        ? maskEmail(l.contact.email)
        : null
      : l.contact.phone
        ? maskPhone(l.contact.phone)
        : null;
  return {
    channel: l.channel,
    address,
    brand: l.brand,
    locale: l.contact.locale,
    whiteLabel: l.whiteLabel,
    subscribed: !isUnsubscribed(l),
    unsubscribedAt: isUnsubscribed(l) ? l.latest!.createdAt : null,
  };
}

export const getUnsubscribe = async (ctx: PublicContext, token: string) => view(await load(ctx, token));

function consentInsert(sctx: ServiceContext, l: Loaded, status: "revoked" | "granted", source: string) {
  const row = {
    id: newId(),
    tenantId: l.claims.tenantId,
    contactId: l.contact.id,
    channel: l.channel,
    status,
    source,
    ipAddress: sctx.meta.ip,
    userAgent: sctx.meta.userAgent,
    createdAt: nowIso(),
  };
  const seq = sql`(select coalesce(max(${consentRecords.seq}), 0) + 1 from ${consentRecords}
    where ${consentRecords.contactId} = ${l.contact.id} and ${consentRecords.channel} = ${l.channel})`;
  return { row, statement: sctx.db.insert(consentRecords).values({ ...row, seq }) };
}

/**
 * Stops the channel for the contact: a consent record `revoked` (source "unsubscribe"), the
 * contact's drip enrollments stopped, an audit row (system actor "unsubscribe", the request's ip
 * and agent) and a contact.suppressed event {contactId, channel, reason: "unsubscribe"}. The
 * contact's isSuppressed (all channels) is not touched. Already unsubscribed: nothing changes.
 */
export async function unsubscribe(ctx: PublicContext, token: string, meta: RequestMeta): Promise<UnsubscribeView> {
  const l = await load(ctx, token);
  if (isUnsubscribed(l)) return view(l);
  await assertTenantWritable(ctx.env, l.claims.tenantId);
  const sctx = actingContext(ctx, l.claims, meta, l.db);
  const { row, statement } = consentInsert(sctx, l, "revoked", UNSUBSCRIBE_SOURCE);
  await commit(
    sctx,
    [
      statement,
      sctx.db
        .update(contacts)
        .set({ lastActivityAt: row.createdAt })
        .where(and(eq(contacts.id, l.contact.id), eq(contacts.tenantId, sctx.tenantId))),
      ...(await stopEnrollmentStatements(sctx, { contactId: l.contact.id }, "unsubscribed")),
      auditStatement(sctx, {
        tenantId: sctx.tenantId,
        action: "contact.unsubscribed",
        resourceType: "contact",
        resourceId: l.contact.id,
        previousState: { channel: l.channel, consent: l.latest?.status ?? null },
        nextState: { channel: l.channel, consent: "revoked", consentRecordId: row.id },
        metadata: { solicitationId: l.claims.solicitationId },
      }),
    ],
    [
      eventStatement(sctx, "contact.suppressed", {
        contactId: l.contact.id,
        channel: l.channel,
        reason: UNSUBSCRIBE_SOURCE,
        solicitationId: l.claims.solicitationId,
        at: row.createdAt,
      }),
    ],
  );
  return { ...view(l), subscribed: false, unsubscribedAt: row.createdAt };
}

/**
 * Undoes an unsubscribe: when the channel's latest consent is this flow's revoke, records `granted`
 * (source "resubscribe"). A revoke made another way (STOP, a bounce, staff) is not the link's to
 * undo: 409. Already subscribed: nothing changes. Drip enrollments stopped meanwhile stay stopped.
 */
export async function resubscribe(ctx: PublicContext, token: string, meta: RequestMeta): Promise<UnsubscribeView> {
  const l = await load(ctx, token);
  if (!isUnsubscribed(l)) return view(l);
  if (l.latest!.source !== UNSUBSCRIBE_SOURCE) {
    throw conflict("This address was opted out another way; contact the business to opt in again");
  }
  await assertTenantWritable(ctx.env, l.claims.tenantId);
  const sctx = actingContext(ctx, l.claims, meta, l.db);
  const { row, statement } = consentInsert(sctx, l, "granted", RESUBSCRIBE_SOURCE);
  await commit(sctx, [
    statement,
    sctx.db
      .update(contacts)
      .set({ lastActivityAt: row.createdAt })
      .where(and(eq(contacts.id, l.contact.id), eq(contacts.tenantId, sctx.tenantId))),
    auditStatement(sctx, {
      tenantId: sctx.tenantId,
      action: "contact.resubscribed",
      resourceType: "contact",
      resourceId: l.contact.id,
      previousState: { channel: l.channel, consent: "revoked" },
      nextState: { channel: l.channel, consent: "granted", consentRecordId: row.id },
      metadata: { solicitationId: l.claims.solicitationId },
    }),
  ]);
  return { ...view(l), subscribed: true, unsubscribedAt: null };
}

import { and, asc, eq, gt, ne } from "drizzle-orm";
import {
  type ConsentChannel,
  type ConsentStatus,
  campaigns,
  complianceConfigs,
  consentRecords,
  contacts,
  experiments,
  locations,
  solicitations,
  templates,
  tenants,
} from "../../db/schema";
import { groupMap } from "../../lib/collections";
import type { ServiceContext } from "../../lib/context";
import { inJson } from "../../lib/sql";
import { COMPLIANCE_DEFAULTS, type ComplianceConfig } from "../compliance/schemas";

export type ConsentByChannel = Partial<Record<ConsentChannel, { status: ConsentStatus; at: string }>>;

export interface PolicyData {
  tenantActive: boolean;
  compliance: ComplianceConfig;
  contacts: Map<string, typeof contacts.$inferSelect>;
  consent: Map<string, ConsentByChannel>;
  locations: Map<string, { id: string; timezone: string }>;
  /** createdAt of each contact's non-blocked solicitations of the last 7 days */
  recentSends: Map<string, string[]>;
  campaigns: Map<string, { id: string; reviewDestination: string }>;
  /** the running experiment of each campaign */
  experiments: Map<string, typeof experiments.$inferSelect>;
  templates: Map<string, { id: string; channel: string; status: string }>;
}

const uniq = (values: (string | null | undefined)[]) => [...new Set(values.filter((v): v is string => !!v))];

/**
 * Everything the policy and the reference checks need for a set of sends, in ONE D1 round trip
 * (a batch of index lookups, each binding its ids as one JSON value).
 */
export async function loadPolicyData(
  ctx: ServiceContext,
  refs: { contactIds: string[]; locationIds: string[]; campaignIds: string[]; templateIds: string[] },
  now: Date,
): Promise<PolicyData> {
  const t = ctx.tenantId;
  const contactIds = uniq(refs.contactIds);
  const campaignIds = uniq(refs.campaignIds);
  const weekAgo = new Date(now.getTime() - 7 * 24 * 3600_000).toISOString();
  const [
    tenantRows,
    complianceRows,
    contactRows,
    consentRows,
    locationRows,
    recentRows,
    campaignRows,
    experimentRows,
    templateRows,
  ] = await ctx.db.batch([
    ctx.db.select({ isActive: tenants.isActive }).from(tenants).where(eq(tenants.id, t)),
    ctx.db.select().from(complianceConfigs).where(eq(complianceConfigs.tenantId, t)),
    ctx.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.tenantId, t), inJson(contacts.id, contactIds))),
    ctx.db
      .select({
        contactId: consentRecords.contactId,
        channel: consentRecords.channel,
        status: consentRecords.status,
        at: consentRecords.createdAt,
      })
      .from(consentRecords)
      .where(and(eq(consentRecords.tenantId, t), inJson(consentRecords.contactId, contactIds)))
      .orderBy(asc(consentRecords.seq)),
    ctx.db
      .select({ id: locations.id, timezone: locations.timezone })
      .from(locations)
      .where(and(eq(locations.tenantId, t), inJson(locations.id, uniq(refs.locationIds)))),
    ctx.db
      .select({ contactId: solicitations.contactId, createdAt: solicitations.createdAt })
      .from(solicitations)
      .where(
        and(
          eq(solicitations.tenantId, t),
          inJson(solicitations.contactId, contactIds),
          gt(solicitations.createdAt, weekAgo),
          ne(solicitations.status, "BLOCKED"),
        ),
      ),
    ctx.db
      .select({ id: campaigns.id, reviewDestination: campaigns.reviewDestination })
      .from(campaigns)
      .where(and(eq(campaigns.tenantId, t), inJson(campaigns.id, campaignIds))),
    ctx.db
      .select()
      .from(experiments)
      .where(
        and(
          eq(experiments.tenantId, t),
          eq(experiments.status, "running"),
          inJson(experiments.campaignId, campaignIds),
        ),
      ),
    ctx.db
      .select({ id: templates.id, channel: templates.channel, status: templates.status })
      .from(templates)
      .where(and(eq(templates.tenantId, t), inJson(templates.id, uniq(refs.templateIds)))),
  ]);

  const consent = new Map<string, ConsentByChannel>();
  // ordered by seq: the last record of a (contact, channel) is its current state
  for (const r of consentRows)
    consent.set(r.contactId, { ...consent.get(r.contactId), [r.channel]: { status: r.status, at: r.at } });
  const recentSends = groupMap(
    recentRows,
    (r) => r.contactId,
    (r) => r.createdAt,
  );
  const stored = complianceRows[0];
  let compliance: ComplianceConfig = { ...COMPLIANCE_DEFAULTS };
  if (stored) {
    const { tenantId: _t, updatedAt: _u, ...config } = stored;
    compliance = config;
  }
  return {
    tenantActive: tenantRows[0]?.isActive ?? false,
    compliance,
    contacts: new Map(contactRows.map((c) => [c.id, c])),
    consent,
    locations: new Map(locationRows.map((l) => [l.id, l])),
    recentSends,
    campaigns: new Map(campaignRows.map((c) => [c.id, c])),
    experiments: new Map(experimentRows.map((e) => [e.campaignId!, e])),
    templates: new Map(templateRows.map((r) => [r.id, r])),
  };
}

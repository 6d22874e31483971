import { and, asc, eq, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { ControlDb, ShardDb } from "../../db/client";
import {
  brands,
  campaigns,
  campaignTemplateBindings,
  complianceConfigs,
  consentRecords,
  contacts,
  experiments,
  locations,
  locationVariables,
  sendRecords,
  solicitations,
  templates,
  tenants,
} from "../../db/schema";
import { groupBy } from "../../lib/collections";
import { inJson } from "../../lib/sql";
import { type TenantWhiteLabel, tenantWhiteLabels } from "../white-label/resolve";
import type { ConsentByChannel } from "./inputs";

type Row<T extends { $inferSelect: unknown }> = T["$inferSelect"];

export interface DeliveryData {
  solicitations: Map<string, Row<typeof solicitations>>;
  contacts: Map<string, Row<typeof contacts>>;
  locations: Map<string, { id: string; name: string; brandName: string | null }>;
  tenantActive: Map<string, boolean>;
  claims: Map<string, Row<typeof sendRecords>>;
  experiments: Map<string, Row<typeof experiments>>;
  campaigns: Map<string, { id: string; metadata: Record<string, unknown> }>;
  bindings: Map<string, Row<typeof campaignTemplateBindings>[]>;
  variables: Map<string, Record<string, string>>;
  consent: Map<string, ConsentByChannel>;
  /** the tenants' saved compliance settings (absent: defaults) */
  consentRules: Map<string, typeof complianceConfigs.$inferSelect>;
  /** the tenants' white labels: the links' host and the email footer */
  whiteLabels: Map<string, TenantWhiteLabel>;
  /** approved template of a lineage, by the id of any version in it */
  approved: Map<string, Row<typeof templates>>;
}

/**
 * Everything a batch of SENDS messages needs, in two D1 round trips on the tenants' shard: the
 * solicitations with all they reference (subqueries on the message ids, so no round trip waits for
 * another's ids), then the approved versions of every template any of them may use. The white
 * labels are control-plane rows (docs/scaling.md): read from `control` (isolate-cached) beside the
 * first round trip for the tenants the messages name, afterwards only for a tenant they did not.
 */
export async function loadDeliveryData(
  db: ShardDb,
  ids: string[],
  control: ControlDb,
  tenantIds: string[],
): Promise<DeliveryData> {
  const of = (column: SQLiteColumn) =>
    sql`(select ${column} from ${solicitations} where ${inJson(solicitations.id, ids)})`;
  const named = tenantIds.length
    ? tenantWhiteLabels(control, tenantIds)
    : Promise.resolve(new Map<string, TenantWhiteLabel>());
  const [sRows, cRows, lRows, tRows, claimRows, eRows, campRows, bRows, vRows, consentRows, complianceRows] =
    await db.batch([
      db.select().from(solicitations).where(inJson(solicitations.id, ids)),
      db
        .select()
        .from(contacts)
        .where(sql`${contacts.id} in ${of(solicitations.contactId)}`),
      db
        .select({
          id: locations.id,
          name: locations.name,
          brandName: sql<string | null>`${brands.name}`.as("brand_name"),
        })
        .from(locations)
        .leftJoin(brands, eq(brands.id, locations.brandId))
        .where(sql`${locations.id} in ${of(solicitations.locationId)}`),
      db
        .select({ id: tenants.id, isActive: tenants.isActive })
        .from(tenants)
        .where(sql`${tenants.id} in ${of(solicitations.tenantId)}`),
      db.select().from(sendRecords).where(inJson(sendRecords.solicitationId, ids)),
      db
        .select()
        .from(experiments)
        .where(sql`${experiments.id} in ${of(solicitations.experimentId)}`),
      db
        .select({ id: campaigns.id, metadata: campaigns.metadata })
        .from(campaigns)
        .where(sql`${campaigns.id} in ${of(solicitations.campaignId)}`),
      db
        .select()
        .from(campaignTemplateBindings)
        .where(sql`${campaignTemplateBindings.campaignId} in ${of(solicitations.campaignId)}`),
      db
        .select()
        .from(locationVariables)
        .where(sql`${locationVariables.locationId} in ${of(solicitations.locationId)}`),
      db
        .select({
          contactId: consentRecords.contactId,
          channel: consentRecords.channel,
          status: consentRecords.status,
          at: consentRecords.createdAt,
        })
        .from(consentRecords)
        .where(sql`${consentRecords.contactId} in ${of(solicitations.contactId)}`)
        .orderBy(asc(consentRecords.seq)),
      db
        .select()
        .from(complianceConfigs)
        .where(sql`${complianceConfigs.tenantId} in ${of(solicitations.tenantId)}`),
    ]);
  const whiteLabels = new Map(await named);
  const unnamed = [...new Set(sRows.map((s) => s.tenantId))].filter((t) => !tenantIds.includes(t));
  if (unnamed.length) for (const [t, wl] of await tenantWhiteLabels(control, unnamed)) whiteLabels.set(t, wl);

  const experimentsById = new Map(eRows.map((e) => [e.id, e]));
  const candidateTemplateIds = new Set<string>();
  for (const s of sRows) {
    if (s.templateId) candidateTemplateIds.add(s.templateId);
    const variant = s.experimentId
      ? experimentsById.get(s.experimentId)?.variants.find((v) => v.id === s.variantId)
      : undefined;
    if (variant?.templateId) candidateTemplateIds.add(variant.templateId);
  }
  for (const b of bRows) candidateTemplateIds.add(b.templateId);

  const approved = new Map<string, Row<typeof templates>>();
  if (candidateTemplateIds.size) {
    const idsJson = [...candidateTemplateIds];
    const [versions, approvedRows] = await db.batch([
      db
        .select({ id: templates.id, rootId: templates.rootId, tenantId: templates.tenantId })
        .from(templates)
        .where(inJson(templates.id, idsJson)),
      db
        .select()
        .from(templates)
        .where(
          and(
            eq(templates.status, "approved"),
            sql`${templates.rootId} in (select ${templates.rootId} from ${templates} where ${inJson(templates.id, idsJson)})`,
          ),
        ),
    ]);
    const byRoot = new Map(approvedRows.map((t) => [`${t.tenantId}:${t.rootId}`, t]));
    for (const v of versions) {
      const t = byRoot.get(`${v.tenantId}:${v.rootId}`);
      if (t) approved.set(v.id, t);
    }
  }

  const consent = new Map<string, ConsentByChannel>();
  for (const r of consentRows)
    consent.set(r.contactId, { ...consent.get(r.contactId), [r.channel]: { status: r.status, at: r.at } });
  const variables = new Map<string, Record<string, string>>();
  for (const [locationId, rows] of groupBy(vRows, (v) => v.locationId))
    variables.set(locationId, Object.fromEntries(rows.map((r) => [r.key, r.value])));

  return {
    solicitations: new Map(sRows.map((s) => [s.id, s])),
    contacts: new Map(cRows.map((c) => [c.id, c])),
    locations: new Map(lRows.map((l) => [l.id, l])),
    tenantActive: new Map(tRows.map((t) => [t.id, t.isActive])),
    claims: new Map(claimRows.map((c) => [c.solicitationId, c])),
    experiments: experimentsById,
    campaigns: new Map(campRows.map((c) => [c.id, c])),
    bindings: groupBy(bRows, (b) => b.campaignId),
    variables,
    consent,
    consentRules: new Map(complianceRows.map((c) => [c.tenantId, c])),
    whiteLabels,
    approved,
  };
}

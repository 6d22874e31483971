import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { complianceConfigs } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { COMPLIANCE_DEFAULTS } from "./schemas";

/**
 * One kind of personal data linked to a contact. Data-subject export (GDPR art. 15/20), erasure
 * (art. 17) and the retention sweep (src/modules/contacts) walk every step the composition root
 * lists (src/wiring.ts, HOOKS.personalData), so a domain that stores data about a contact
 * (solicitations, feedback, reviews) adds its step there and is covered by all three.
 */
export interface PersonalDataStep {
  /** the key of this kind in the export's `records` */
  key: string;
  /** the rows linked to the contact, as the export shows them */
  exportRows: (ctx: ServiceContext, contactId: string) => Promise<object[]>;
  /** statements that delete or anonymise what is linked to these contacts; run in the erasure's batch */
  erase: (ctx: ServiceContext, contactIds: string[]) => BatchItem<"sqlite">[];
  /**
   * Retention, for data with its own age (solicitations, feedback): delete at most `limit` rows,
   * across tenants, older than `retentionCutoff(row's tenant, now)`, audited; returns how many went.
   */
  expire?: (system: Omit<ServiceContext, "tenantId">, now: string, limit: number) => Promise<number>;
}

/** SQL: the instant before which a tenant's data is past its retentionDays (defaults apply when unsaved). */
export const retentionCutoff = (tenantId: SQLiteColumn, now: string): SQL =>
  sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${now}, '-' || coalesce(
    (select ${complianceConfigs.retentionDays} from ${complianceConfigs} where ${complianceConfigs.tenantId} = ${tenantId}),
    ${COMPLIANCE_DEFAULTS.retentionDays}) || ' days')`;

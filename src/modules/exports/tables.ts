import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import {
  auditEvents,
  brands,
  campaigns,
  campaignTemplateBindings,
  consentRecords,
  contacts,
  feedbackSubmissions,
  inboxItems,
  inboxNotes,
  integrations,
  locations,
  regions,
  reviewResponses,
  reviews,
  slaRules,
  solicitations,
  surveys,
  templates,
  webhookSubscriptions,
} from "../../db/schema";

/*
 * What a tenant data export holds: the tenant's own rows of these tables, in this order, each paged
 * by its text primary key. Every one has `id` and `tenant_id`. Left out on purpose: secrets (the
 * sealed review-site credentials and webhook signing secrets: their columns are dropped; API key
 * hashes and user tokens live on the control database and are not read at all), and derived or
 * operational rows (rollups, outbox, deliveries, idempotency keys, jobs) that the service rebuilds.
 */

type Exportable = SQLiteTable & { id: SQLiteColumn; tenantId: SQLiteColumn };
interface ExportTable {
  name: string;
  table: Exportable;
  /** the columns written: every column but the secret ones */
  columns: Record<string, SQLiteColumn>;
}

function exportable(table: Exportable, secretColumns: string[] = []): ExportTable {
  const columns = { ...getTableColumns(table) } as Record<string, SQLiteColumn>;
  for (const c of secretColumns) delete columns[c];
  return { name: getTableName(table), table, columns };
}

export const EXPORT_TABLES: ExportTable[] = [
  exportable(brands),
  exportable(regions),
  exportable(locations),
  // suppression (isSuppressed, suppressedAt, reason) is on the contact row; consent history beside it
  exportable(contacts),
  exportable(consentRecords),
  exportable(templates),
  exportable(campaigns),
  exportable(campaignTemplateBindings),
  // the short-link token opens the customer's feedback page: a live bearer link, not data
  exportable(solicitations, ["shortLinkToken"]),
  exportable(reviews),
  exportable(reviewResponses),
  exportable(slaRules),
  exportable(surveys),
  // survey answers are part of the submission (answers, NPS score, comment)
  exportable(feedbackSubmissions),
  exportable(inboxItems),
  exportable(inboxNotes),
  exportable(integrations, ["credentialsEncrypted"]),
  exportable(webhookSubscriptions, ["secretEncrypted"]),
  exportable(auditEvents),
];

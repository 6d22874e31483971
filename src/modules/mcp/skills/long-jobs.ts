import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../../db/schema";
import { importContactsCsv } from "../../contacts/import";
import { requestContactsImport } from "../../contacts/import-job";
import { ImportResultSchema } from "../../contacts/schemas";
import { TenantExportToolResultSchema, toTenantExport } from "../../exports/schemas";
import { startTenantExport } from "../../exports/service";
import { SyncResultSchema } from "../../reviews/schemas";
import { requestSync } from "../../reviews/sync";
import { requestReviewSyncJob } from "../../reviews/sync-job";
import { sendCampaignBulk } from "../../solicitations/bulk-send";
import { requestCampaignSendBulk } from "../../solicitations/bulk-send-job";
import { SendBulkResultSchema } from "../../solicitations/schemas";
import { type SkillContext, skill } from "./registry";

/*
 * The long jobs as tools. A client that declares the tasks extension (2026-07-28) gets a task handle
 * and follows the job with tasks/get (mcp/tasks.ts); any other client gets the answer the REST route
 * gives, synchronously. The CSV travels as text: MCP has no file upload.
 */

/** 1 MB of CSV text: the job keeps it in its row until it is done (D1 rows hold up to 2 MB). */
const MAX_CSV_CHARS = 1_000_000;
const Csv = z
  .string()
  .min(1)
  .max(MAX_CSV_CHARS)
  .describe("the CSV text with a header row; at most 5,000 rows and 1 MB");
const rowsOf = (csv: string) => Math.max(0, csv.trim().split(/\r?\n/).length - 1);

export const contactImportCsvSkill = skill({
  name: "contact.import-csv",
  title: "Import contacts from CSV",
  description:
    "Upserts contacts from CSV text (columns email, phone, first_name, last_name, locale, timezone; an email or phone " +
    "column is required), matching existing contacts by email or phone. Answers {imported, skipped, errors[{row, reason}]}. " +
    "Clients with the MCP tasks extension get a task to poll (a long file runs in the background); others wait for the answer.",
  input: z.object({ csv: Csv, fileName: z.string().max(200).optional().describe("shown in the audit log") }),
  scopes: ["write:contacts"],
  access: "write",
  idempotent: true,
  minRole: "tenant_user",
  output: ImportResultSchema,
  confirm: (input) => `Import about ${rowsOf(input.csv)} contacts from CSV (existing contacts are updated)?`,
  handler: (ctx, input) =>
    importContactsCsv(ctx, new File([input.csv], input.fileName ?? "contacts.csv", { type: "text/csv" })),
  longJob: { start: (ctx, input, owner) => requestContactsImport(ctx, input, owner) },
});

export const campaignSendBulkSkill = skill({
  name: "campaign.send-bulk",
  title: "Send a campaign to the contacts of a CSV",
  description:
    "Upserts each CSV row (email, phone, first_name, last_name, and per-row locationId and channel) as a contact and sends " +
    "it one review request of the campaign through the sending policy (consent, caps, quiet hours). Answers " +
    "{total, queued, skipped (blocked by the policy), failed (unusable rows), errors[{row, reason}]}. Clients with the MCP " +
    "tasks extension get a task to poll; others wait for the answer.",
  input: z.object({
    campaignId: z.string().min(1).max(64).describe("the campaign's id (from campaign.list)"),
    csv: Csv,
    locationId: z.string().max(64).optional().describe("the location of rows without a locationId column"),
    channel: z.enum(MESSAGE_CHANNELS).optional().describe("the channel of rows without a channel column"),
    templateId: z.string().max(64).optional().describe("a template of that channel instead of the campaign's"),
  }),
  scopes: ["write:campaigns"],
  access: "write",
  openWorld: true,
  minRole: "manager",
  output: SendBulkResultSchema,
  confirm: (input) =>
    `Send campaign ${input.campaignId} to about ${rowsOf(input.csv)} people from the CSV? Messages go out and cannot be recalled.`,
  handler: (ctx, input) =>
    sendCampaignBulk(ctx, input.campaignId, {
      file: new File([input.csv], "contacts.csv", { type: "text/csv" }),
      locationId: input.locationId,
      channel: input.channel,
      templateId: input.templateId,
    }),
  longJob: { start: (ctx, input, owner) => requestCampaignSendBulk(ctx, input, owner) },
});

export const reviewSyncSkill = skill({
  name: "review.sync",
  title: "Sync reviews from the review sites",
  description:
    "Fetches new and changed reviews from every enabled review-site connection (or one location's). Without the MCP tasks " +
    "extension it answers at once what was queued ({queued, bySite, jobs}); with it, a task whose result adds each " +
    "connection's outcome ({outcome: {synced, failed, results}}) once every sync has finished.",
  input: z.object({ locationId: z.string().max(64).optional().describe("only this location's connections") }),
  scopes: ["write:reviews"],
  access: "write",
  idempotent: true,
  openWorld: true,
  minRole: "tenant_user",
  confirm: (input) =>
    `Fetch reviews from the review sites now${input.locationId ? ` for location ${input.locationId}` : ""}?`,
  output: SyncResultSchema.extend({
    outcome: z
      .object({
        synced: z.number().int(),
        failed: z.number().int(),
        results: z.array(
          z.object({
            integrationId: z.string(),
            siteType: z.string().nullable(),
            status: z.enum(["ok", "error"]),
            error: z.string().nullable().optional(),
          }),
        ),
      })
      .optional()
      .describe("a task's result only: each queued connection's sync outcome"),
  }),
  handler: (ctx, input) => requestSync(ctx, input),
  longJob: { start: (ctx, input, owner) => requestReviewSyncJob(ctx, input, owner) },
});

/*
 * The tenant data export holds every kind of tenant data, so it asks for more than any one read scope:
 * skill scopes unlock on any one of them (registry.ts), so the tool lists read:contacts (personal data,
 * the most sensitive part) and `callers` offers it only to a caller holding EVERY read scope of the
 * data it writes. It is for signed-in tenant admins only, like POST /v1/exports: an API key has no role, and
 * keys cannot reach /v1/exports either (identity/scopes.ts lists no scope for it).
 */
const EXPORT_READ_SCOPES = [
  "read:contacts",
  "read:reviews",
  "read:feedback",
  "read:surveys",
  "read:campaigns",
  "read:locations",
] as const;

/** Signed-in users holding every read scope of the exported data; others are not offered the tool. */
const mayExport = (caller: SkillContext["caller"]) =>
  caller.credential !== "api_key" && EXPORT_READ_SCOPES.every((s) => caller.scopes.includes(s));

export const tenantExportSkill = skill({
  name: "tenant.export",
  title: "Export all of the tenant's data",
  description:
    "Writes every row the tenant owns (locations, contacts with consent and suppression, campaigns, templates, " +
    "solicitations, reviews and responses, surveys and feedback, inbox, integrations and webhooks without secrets, the " +
    "audit trail) into a JSON Lines file, one {table, row} per line, downloadable for 7 days at downloadPath (REST, " +
    "tenant admin). Tenant admins only, and only when the tenant's compliance settings allow data export. Clients with " +
    "the MCP tasks extension get a task whose result has the downloadPath; others get the queued export at once " +
    "(follow it with GET /v1/exports/{id}).",
  input: z.object({}),
  scopes: ["read:contacts"],
  access: "write",
  minRole: "tenant_admin",
  callers: mayExport,
  output: TenantExportToolResultSchema,
  confirm: () => "Export all of this tenant's data (customers' personal data included) into a downloadable file?",
  handler: async (ctx) => toTenantExport(await startTenantExport(ctx)),
  longJob: { start: (ctx, _input, owner) => startTenantExport(ctx, owner) },
});

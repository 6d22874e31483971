import { MESSAGE_CHANNELS, type MessageChannel } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { MAX_CSV_BYTES, MAX_CSV_ROWS, parseCsvTable, readCsvFile } from "../../lib/csv";
import { isUniqueViolation } from "../../lib/db-errors";
import { ApiError, conflict, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { UpsertContactBody } from "../contacts/schemas";
import { type PreparedContact, planUpserts, preparePhone, upsertStatements } from "../contacts/upsert";
import { tenantLocations } from "../locations/refs";
import { createSolicitations, type SolicitationRequest } from "../solicitations/create";
import { usableTemplates } from "../templates/service";
import { campaignSentWrites, sendableCampaign } from "./send";

export interface SendBulkForm {
  file: File;
  locationId?: string;
  channel?: MessageChannel;
  templateId?: string;
}

/** Header spellings per field, compared lower-cased without spaces, "_" or "-". */
const COLUMNS: Record<string, string> = {
  email: "email",
  phone: "phone",
  firstname: "firstName",
  lastname: "lastName",
  locationid: "locationId",
  channel: "channel",
};
const headerKey = (h: string) => h.toLowerCase().replace(/[\s_-]/g, "");

interface RowError {
  row: number;
  reason: string;
}

interface ParsedRow {
  row: number;
  contact: PreparedContact;
  locationId: string;
  channel: MessageChannel;
}

export function parse(text: string) {
  const { rows, fields, broken, overLimit } = parseCsvTable(text, {
    transformHeader: (h) => COLUMNS[headerKey(h)] ?? `ignored:${h}`,
  });
  if (overLimit)
    throw new ApiError("PAYLOAD_TOO_LARGE", `Send-bulk is limited to ${MAX_CSV_ROWS} rows; nothing was sent`);
  if (!fields.includes("email") && !fields.includes("phone")) {
    throw validationError([{ path: "contacts", message: "The CSV header needs an email or a phone column" }]);
  }
  return { rows, broken };
}

/** One row -> what to upsert and where to send, or why the row cannot be used. Row cells override the form's defaults. */
function prepareRow(
  cells: Record<string, string>,
  form: SendBulkForm,
  channels: readonly MessageChannel[],
): Omit<ParsedRow, "row"> | string {
  const cell = (k: string) => cells[k]?.trim() || undefined;
  const channel = (cell("channel")?.toLowerCase() ?? form.channel) as MessageChannel | undefined;
  if (!channel) return "channel: required (a column or the form field)";
  if (!MESSAGE_CHANNELS.includes(channel)) return `channel: must be one of ${MESSAGE_CHANNELS.join(", ")}`;
  if (!channels.includes(channel)) return `channel: ${channel} is not one of the campaign's channels`;
  const locationId = cell("locationId") ?? form.locationId;
  if (!locationId) return "locationId: required (a column or the form field)";
  const parsed = UpsertContactBody.safeParse(
    Object.fromEntries(
      (["email", "phone", "firstName", "lastName"] as const).flatMap((f) => (cell(f) ? [[f, cell(f)]] : [])),
    ),
  );
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  const contact = preparePhone(parsed.data);
  if ("message" in contact) return `${contact.path}: ${contact.message}`;
  return { contact, locationId, channel };
}

/**
 * POST /v1/campaigns/{id}/send-bulk: each valid row is upserted as a contact (the contacts module's
 * upsert, all rows in one atomic batch), then gets one solicitation through the policy.
 * queued = PENDING created, skipped = BLOCKED by the policy, failed = rows that could not be used;
 * errors lists both the failed and the skipped rows with their reason.
 */
export async function sendCampaignBulk(
  ctx: ServiceContext,
  campaignId: string,
  form: SendBulkForm,
  retried = false,
  // a job's send names itself after the job, so a repeated run finds the same idempotency keys (bulk-send-job.ts)
  givenSendId?: string,
) {
  const campaign = await sendableCampaign(ctx, campaignId, form.channel);
  if (form.file.size > MAX_CSV_BYTES)
    throw new ApiError("PAYLOAD_TOO_LARGE", "Send-bulk is limited to 10 MB; nothing was sent");
  const template = form.templateId
    ? (await usableTemplates(ctx, [{ path: "templateId", templateId: form.templateId }])).get(form.templateId)!
    : null;
  const { rows, broken } = parse(await readCsvFile(form.file));

  const errors: RowError[] = [];
  const accepted: ParsedRow[] = [];
  rows.forEach((cells, i) => {
    const prepared = broken.has(i) ? `Malformed CSV: ${broken.get(i)}` : prepareRow(cells, form, campaign.channels);
    if (typeof prepared === "string") errors.push({ row: i + 1, reason: prepared });
    else accepted.push({ row: i + 1, ...prepared });
  });

  // rows at an unknown location fail before anything is written for them
  const known = new Set(
    (
      await tenantLocations(
        ctx,
        accepted.map((a) => a.locationId),
      )
    ).map((l) => l.id),
  );
  const usable = accepted.filter((a) => {
    if (!known.has(a.locationId)) errors.push({ row: a.row, reason: "locationId: Unknown location" });
    return known.has(a.locationId);
  });

  const now = nowIso();
  const plan = await planUpserts(
    ctx,
    usable.map((a) => a.contact),
    now,
  );
  const requests: (SolicitationRequest & { row: number })[] = [];
  const sendId = givenSendId ?? `send_${newId()}`;
  plan.outcomes.forEach((o, i) => {
    const a = usable[i]!;
    if ("error" in o) errors.push({ row: a.row, reason: o.error });
    else
      requests.push({
        row: a.row,
        contactId: o.id,
        locationId: a.locationId,
        channel: a.channel,
        campaignId: campaign.id,
        // the form's template applies to the rows of its channel; others use the campaign's bindings
        templateId: template && template.channel === a.channel ? template.id : null,
        idempotencyKey: `${sendId}:row${a.row}`,
      });
  });
  if (plan.rows.length) {
    try {
      await commit(ctx, [
        ...upsertStatements(ctx, plan.rows),
        auditStatement(ctx, {
          tenantId: ctx.tenantId,
          action: "contact.imported",
          resourceType: "contact_import",
          resourceId: sendId,
          nextState: {
            source: "campaign.send-bulk",
            campaignId: campaign.id,
            fileName: form.file.name,
            rows: rows.length,
            contactIds: plan.rows.map((r) => r.id),
          },
        }),
      ]);
    } catch (e) {
      // a concurrent write took one of the emails or phones after the lookup; nothing was written: match again, once
      if (isUniqueViolation(e) && !retried) return sendCampaignBulk(ctx, campaignId, form, true, givenSendId);
      if (isUniqueViolation(e)) throw conflict("Concurrent writes changed the same contacts; nothing was sent, retry");
      throw e;
    }
  }

  const result = await createSolicitations(ctx, requests, {
    audit: {
      action: "solicitation.created",
      resourceType: "campaign_send",
      resourceId: sendId,
      metadata: { campaignId: campaign.id, bulk: true },
    },
    finalize: async (outcomes) => {
      const created = outcomes.flatMap((o) => (o.ok ? [o.solicitation] : []));
      const queued = created.filter((s) => s.status === "PENDING").length;
      return campaignSentWrites(ctx, campaign, sendId, {
        bulk: true,
        total: rows.length,
        queued,
        skipped: created.length - queued,
        failed: rows.length - created.length,
      });
    },
  });
  let queued = 0;
  let skipped = 0;
  result.outcomes.forEach((o, i) => {
    const row = requests[i]!.row;
    if (!o.ok) errors.push({ row, reason: `${o.issue.path}: ${o.issue.message}` });
    else if (o.solicitation.status === "PENDING") queued++;
    else {
      skipped++;
      errors.push({ row, reason: `Blocked by policy: ${o.solicitation.blockedReason}` });
    }
  });
  errors.sort((a, b) => a.row - b.row);
  return { total: rows.length, queued, skipped, failed: rows.length - queued - skipped, errors };
}

import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../db/schema";
import { MAX_CSV_BYTES } from "../../lib/csv";
import { errors, IdParam, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { SolicitationWithContactSchema } from "../solicitations/schemas";
import { listCampaignSolicitations, sendCampaign } from "./send";
import {
  CampaignSendBody,
  CampaignSendKeyHeader,
  CampaignSolicitationsQuery,
  SendBulkForm,
  SendBulkResultSchema,
  SendResultSchema,
} from "./send.schemas";
import { sendCampaignBulk } from "./send-bulk";
import { requestCampaignSendBulk } from "./send-bulk-job";

// The campaign sends in the catalogue (src/lib/operation.ts): a campaign's operations (its path is
// /v1/campaigns/{id}/...), which create solicitations through the solicitations module (one way:
// solicitations never imports campaigns, scripts/import-graph.mjs).

const tags = ["Campaigns"];

export const sendCampaignOperation = defineOperation({
  name: "campaign.send",
  operationId: "sendCampaign",
  method: "post",
  path: "/v1/campaigns/{id}/send",
  tags,
  summary: "Send the campaign to its eligible contacts or the given ones (manager)",
  description:
    "Without contactIds: every non-suppressed contact with an address for the channel, newest first, up to `limit`. Each contact goes " +
    "through the sending policy; blocked ones are stored BLOCKED. `failed` counts ids that are not this tenant's contacts (listed in errors). " +
    "409 when the campaign is inactive. Optional `Idempotency-Key`: a retry with the same key (after a timeout or an error part-way) " +
    "only creates the solicitations the earlier call did not, and answers the counts of the whole send.",
  // the Idempotency-Key header is an input field like the others ("idempotency-key")
  request: { params: IdParam, headers: CampaignSendKeyHeader, body: CampaignSendBody },
  output: SendResultSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  // REST: API keys may not send (identity/scopes.ts)
  scopes: [],
  minRole: "manager",
  access: "write",
  openWorld: true,
  console: {},
  handler: async (ctx, { id, "idempotency-key": key, ...body }) => sendCampaign(ctx, id, body, key),
});

export const sendCampaignBulkOperation = defineOperation({
  name: "campaign.send-bulk-file",
  operationId: "sendCampaignBulk",
  method: "post",
  path: "/v1/campaigns/{id}/send-bulk",
  tags,
  summary: "Upsert the CSV's rows as contacts and send each one a solicitation (manager)",
  description:
    "multipart/form-data: `contacts` (CSV with email, phone, firstName, lastName, and per-row overrides locationId and channel), " +
    "and form fields locationId, channel, templateId as defaults. At most 5,000 rows and 10 MB (413). `skipped` = rows blocked by the " +
    "policy, `failed` = rows that could not be used; both are listed in errors with their 1-based row.",
  request: {
    params: IdParam,
    form: SendBulkForm,
    bodyLimit: { bytes: MAX_CSV_BYTES + 64 * 1024, message: "Send-bulk is limited to 10 MB; nothing was sent" },
  },
  output: SendBulkResultSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 413: errors[413] },
  scopes: [],
  minRole: "manager",
  access: "write",
  openWorld: true,
  console: {},
  handler: async (ctx, { id, contacts: file, ...defaults }) => sendCampaignBulk(ctx, id, { file, ...defaults }),
});

export const listCampaignSolicitationsOperation = defineOperation({
  name: "campaign.solicitations",
  operationId: "listCampaignSolicitations",
  method: "get",
  path: "/v1/campaigns/{id}/solicitations",
  tags,
  summary:
    "The campaign's solicitations, newest first, with their contact; `deliveryOutcome=unknown` lists the sends whose outcome is unknown",
  request: { params: IdParam, query: CampaignSolicitationsQuery },
  output: z
    .object({ data: z.array(SolicitationWithContactSchema), total: z.number().int() })
    .openapi("CampaignSolicitationList"),
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  console: {},
  handler: async (ctx, { id, ...query }) => listCampaignSolicitations(ctx, id, query),
});

/** 1 MB of CSV text: the job keeps it in its row until it is done (D1 rows hold up to 2 MB). */
const MAX_CSV_CHARS = 1_000_000;
const rowsOf = (csv: string) => Math.max(0, csv.trim().split(/\r?\n/).length - 1);

/**
 * The bulk send for an assistant: MCP has no file upload, so the CSV travels as text; a long job to a
 * client with the tasks extension (mcp/tasks.ts), the REST route's answer to any other.
 */
export const sendCampaignBulkTextOperation = defineOperation({
  name: "campaign.send-bulk",
  summary: "Send a campaign to the contacts of a CSV",
  description:
    "Upserts each CSV row (email, phone, first_name, last_name, per-row locationId and channel) as a contact and sends " +
    "it one review request of the campaign through the sending policy. skipped: blocked by the policy; failed: unusable rows.",
  input: z.object({
    campaignId: z.string().min(1).max(64),
    csv: z.string().min(1).max(MAX_CSV_CHARS).describe("with a header row; at most 5,000 rows"),
    locationId: z.string().max(64).optional().describe("for rows without a locationId"),
    channel: z.enum(MESSAGE_CHANNELS).optional().describe("for rows without a channel"),
    templateId: z.string().max(64).optional().describe("instead of the campaign's template"),
  }),
  output: SendBulkResultSchema,
  scopes: ["write:campaigns"],
  minRole: "manager",
  access: "write",
  openWorld: true,
  variantOf: { operationId: "sendCampaignBulk", why: "the CSV as text (MCP has no file upload), as a long job" },
  confirm: (input) =>
    `Send campaign ${input.campaignId} to about ${rowsOf(input.csv)} people from the CSV? Messages go out and cannot be recalled.`,
  mcp: {
    title: "Send a campaign to the contacts of a CSV",
    longJob: {
      kind: "campaign_send_bulk",
      unit: "rows",
      start: (ctx, input, owner) => requestCampaignSendBulk(ctx, input, owner),
    },
  },
  handler: (ctx, input) =>
    sendCampaignBulk(ctx, input.campaignId, {
      file: new File([input.csv], "contacts.csv", { type: "text/csv" }),
      locationId: input.locationId,
      channel: input.channel,
      templateId: input.templateId,
    }),
});

/** Spread into the campaigns module's operations (campaigns/operations.ts). */
export const operations: Operation[] = [
  sendCampaignOperation,
  sendCampaignBulkOperation,
  listCampaignSolicitationsOperation,
  sendCampaignBulkTextOperation,
];

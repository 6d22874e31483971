import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../db/schema";
import { MAX_CSV_BYTES } from "../../lib/csv";
import { errors, IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation, reply } from "../../lib/operation";
import { ContactIdParam } from "../contacts/schemas";
import { findContactRow } from "../contacts/service";
import { sendCampaignBulk } from "./bulk-send";
import { requestCampaignSendBulk } from "./bulk-send-job";
import { listCampaignSolicitations, sendCampaign } from "./campaign-send";
import { listRefusals, listSolicitations } from "./list";
import {
  CampaignSendBody,
  CampaignSendKeyHeader,
  CampaignSolicitationsQuery,
  ContactSolicitationsQuery,
  CreateSolicitationBody,
  IdempotencyKeyHeader,
  RefusalListQuery,
  RefusalPageSchema,
  SendBulkForm,
  SendBulkResultSchema,
  SendResultSchema,
  SolicitationListQuery,
  SolicitationPageSchema,
  SolicitationSchema,
  SolicitationWithContactSchema,
} from "./schemas";
import { createSolicitation, getSolicitation } from "./service";

export const createSolicitationOperation = defineOperation({
  name: "solicitation.create",
  operationId: "createSolicitation",
  method: "post",
  path: "/v1/solicitations",
  tags: ["Solicitations"],
  summary: "Request a review from one contact (tenant_user); delivered off the request path",
  description:
    "Requires `Idempotency-Key` (400 IDEMPOTENCY_KEY_REQUIRED without it). The same key with the same body within 24 hours " +
    "replays the first response (header `Idempotent-Replayed: true`) and creates nothing; with another body it is 422 " +
    "IDEMPOTENCY_KEY_REUSED; while the first request is still running a duplicate waits for its answer (up to 10 s, then 409 CONFLICT). " +
    "Frequency caps hold under any concurrency (checked again in the batch that writes the send). A send the policy blocks is still " +
    "created, with status BLOCKED and blockedReason, and answered 201.",
  // the Idempotency-Key header is an input field like the others ("idempotency-key")
  request: { headers: IdempotencyKeyHeader, body: CreateSolicitationBody },
  status: 201,
  statusText: "Created (PENDING, or BLOCKED by policy)",
  output: SolicitationSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 422: errors[422] },
  // REST: API keys may not send (identity/scopes.ts)
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  openWorld: true,
  handler: async (ctx, { "idempotency-key": key, ...body }) => {
    const result = await createSolicitation(ctx, key, body);
    return reply(result.body, {
      status: result.status,
      ...(result.replayed ? { headers: { "Idempotent-Replayed": "true" } } : {}),
    });
  },
});

export const getSolicitationOperation = defineOperation({
  name: "solicitation.get",
  operationId: "getSolicitation",
  method: "get",
  path: "/v1/solicitations/{id}",
  tags: ["Solicitations"],
  summary: "Get a solicitation",
  request: { params: IdParam },
  output: SolicitationSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  handler: async (ctx, input) => getSolicitation(ctx, input.id),
});

export const listSolicitationsOperation = defineOperation({
  name: "solicitation.list",
  operationId: "listSolicitations",
  method: "get",
  path: "/v1/solicitations",
  tags: ["Solicitations"],
  summary: "Review requests sent (or refused by the sending policy), newest first",
  description:
    "The business's review requests (solicitations), newest first, with contact, status and timestamps, and why one " +
    "failed (failureReason) or the sending policy refused it (BLOCKED, blockedReason). Created from (inclusive) to (exclusive).",
  request: { query: SolicitationListQuery },
  output: SolicitationPageSchema,
  errors: stdErrors,
  scopes: ["read:campaigns"],
  access: "read",
  mcp: {
    title: "List review requests (solicitations)",
    limit: { default: 25, max: 100 },
  },
  handler: (ctx, input) => listSolicitations(ctx, input),
});

// Two views of the same list the console needs (issue #46), REST only: an assistant has solicitation.list
// with contactId, status=BLOCKED and blockedReason. They live here, under other modules' paths and tags,
// because solicitations depends on contacts and compliance (never the other way round).

export const listContactSolicitationsOperation = defineOperation({
  name: "contact.solicitations",
  operationId: "listContactSolicitations",
  method: "get",
  path: "/v1/contacts/{id}/solicitations",
  tags: ["Contacts"],
  summary: "A contact's message history: the review requests sent to them (or refused), newest first",
  description:
    "Every review request (solicitation) to this contact, newest first: channel, status, when it was created, sent, " +
    "delivered, clicked and converted, its campaign, and why it failed (failureReason) or was refused by the sending " +
    "policy (blockedReason). Another tenant's contact is 404.",
  request: { params: ContactIdParam, query: ContactSolicitationsQuery },
  output: SolicitationPageSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:contacts"],
  access: "read",
  handler: async (ctx, { id, ...q }) => {
    await findContactRow(ctx, id);
    return listSolicitations(ctx, { ...q, contactId: id });
  },
});

export const listRefusalsOperation = defineOperation({
  name: "compliance.refusals",
  operationId: "listComplianceRefusals",
  method: "get",
  path: "/v1/compliance/refusals",
  tags: ["Compliance"],
  summary: "The sending policy's recent refusals, with their reasons and a count per reason",
  description:
    "Review requests the sending policy refused (status BLOCKED), newest first, each with its contact and blockedReason " +
    "(TENANT_PAUSED, SUPPRESSED, MISSING_ADDRESS, NO_CONSENT, QUIET_HOURS, FREQUENCY_CAP_DAILY, FREQUENCY_CAP_WEEKLY), " +
    "and byReason: how many per reason in the range. The range is the last 30 days unless from is given.",
  request: { query: RefusalListQuery },
  output: RefusalPageSchema,
  errors: stdErrors,
  // like the compliance settings: signed-in users only (no API key scope, src/modules/identity/scopes.ts)
  scopes: [],
  access: "read",
  handler: (ctx, input) => listRefusals(ctx, input),
});

// The campaign sends in the catalogue (src/lib/operation.ts). They live here, beside the sending
// policy they run; docs/ARCHITECTURE.md's fan-out moves them to campaigns, which calls solicitations.

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

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  createSolicitationOperation,
  getSolicitationOperation,
  sendCampaignOperation,
  sendCampaignBulkOperation,
  listCampaignSolicitationsOperation,
  sendCampaignBulkTextOperation,
  listSolicitationsOperation,
  listContactSolicitationsOperation,
  listRefusalsOperation,
];

import { createRoute, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { MAX_CSV_BYTES } from "../../lib/csv";
import { ApiError } from "../../lib/errors";
import {
  createRouter,
  errors,
  IdParam,
  json,
  jsonBody,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canManage } from "../../middleware/tenant";
import { sendCampaignBulk } from "./bulk-send";
import { listCampaignSolicitations, sendCampaign } from "./campaign-send";
import {
  CampaignSendBody,
  CampaignSendKeyHeader,
  CampaignSolicitationsQuery,
  SendBulkForm,
  SendBulkResultSchema,
  SendResultSchema,
  SolicitationWithContactSchema,
} from "./schemas";

const tags = ["Campaigns"];
const base = { tags, security: TENANT_SECURITY };

const send = createRoute({
  ...base,
  method: "post",
  path: "/v1/campaigns/{id}/send",
  operationId: "sendCampaign",
  summary: "Send the campaign to its eligible contacts or the given ones (manager)",
  description:
    "Without contactIds: every non-suppressed contact with an address for the channel, newest first, up to `limit`. Each contact goes " +
    "through the sending policy; blocked ones are stored BLOCKED. `failed` counts ids that are not this tenant's contacts (listed in errors). " +
    "409 when the campaign is inactive. Optional `Idempotency-Key`: a retry with the same key (after a timeout or an error part-way) " +
    "only creates the solicitations the earlier call did not, and answers the counts of the whole send.",
  middleware: [canManage] as const,
  request: { params: IdParam, headers: CampaignSendKeyHeader, body: jsonBody(CampaignSendBody) },
  responses: { 200: json(SendResultSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

const csvBodyLimit = bodyLimit({
  maxSize: MAX_CSV_BYTES + 64 * 1024,
  onError: () => {
    throw new ApiError("PAYLOAD_TOO_LARGE", "Send-bulk is limited to 10 MB; nothing was sent");
  },
});

const sendBulk = createRoute({
  ...base,
  method: "post",
  path: "/v1/campaigns/{id}/send-bulk",
  operationId: "sendCampaignBulk",
  summary: "Upsert the CSV's rows as contacts and send each one a solicitation (manager)",
  description:
    "multipart/form-data: `contacts` (CSV with email, phone, firstName, lastName, and per-row overrides locationId and channel), " +
    "and form fields locationId, channel, templateId as defaults. At most 5,000 rows and 10 MB (413). `skipped` = rows blocked by the " +
    "policy, `failed` = rows that could not be used; both are listed in errors with their 1-based row.",
  middleware: [canManage, csvBodyLimit] as const,
  request: { params: IdParam, body: { required: true, content: { "multipart/form-data": { schema: SendBulkForm } } } },
  responses: { 200: json(SendBulkResultSchema), ...stdErrorsWithNotFound, 409: errors[409], 413: errors[413] },
});

const list = createRoute({
  ...base,
  method: "get",
  path: "/v1/campaigns/{id}/solicitations",
  summary:
    "The campaign's solicitations, newest first, with their contact; `deliveryOutcome=unknown` lists the sends whose outcome is unknown",
  operationId: "listCampaignSolicitations",
  request: { params: IdParam, query: CampaignSolicitationsQuery },
  responses: {
    200: json(
      z
        .object({ data: z.array(SolicitationWithContactSchema), total: z.number().int() })
        .openapi("CampaignSolicitationList"),
    ),
    ...stdErrorsWithNotFound,
  },
});

export const campaignSendRoutes = createRouter()
  .openapi(send, async (c) =>
    c.json(
      await sendCampaign(
        svc(c),
        c.req.valid("param").id,
        c.req.valid("json"),
        c.req.valid("header")["idempotency-key"],
      ),
      200,
    ),
  )
  .openapi(sendBulk, async (c) => {
    const { contacts: file, ...defaults } = c.req.valid("form");
    return c.json(await sendCampaignBulk(svc(c), c.req.valid("param").id, { file, ...defaults }), 200);
  })
  .openapi(list, async (c) =>
    c.json(await listCampaignSolicitations(svc(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );

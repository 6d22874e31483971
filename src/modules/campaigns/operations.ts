import { z } from "@hono/zod-openapi";
import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { operations as bindingsOperations } from "./bindings.operations";
import { BindingSchema } from "./bindings.schemas";
import { listBindings } from "./bindings.service";
import { CampaignListQuery, CampaignSchema, CreateCampaignBody, toCampaign, UpdateCampaignBody } from "./schemas";
import { operations as sendOperations } from "./send.operations";
import { operations as sequencesOperations } from "./sequences.operations";
import { SequenceSchema } from "./sequences.schemas";
import { getSequence } from "./sequences.service";
import {
  createCampaign,
  findCampaignRow,
  getCampaign,
  listCampaigns,
  setCampaignActive,
  updateCampaign,
} from "./service";

// The campaigns operations served by REST, MCP and agents alike (src/lib/operation.ts); a campaign's
// template bindings, its sequence and its sends in bindings.operations.ts, sequences.operations.ts and
// send.operations.ts.

const tags = ["Campaigns"];

export const listCampaignsOperation = defineOperation({
  name: "campaign.list",
  operationId: "listCampaigns",
  method: "get",
  path: "/v1/campaigns",
  tags,
  summary: "List campaigns, newest first",
  description:
    "Review-request campaigns, newest first: type, channels, whether active, dates and where customers are sent (reviewDestination).",
  request: { query: CampaignListQuery },
  output: paged(CampaignSchema).openapi("CampaignPage"),
  errors: stdErrors,
  scopes: ["read:campaigns"],
  access: "read",
  mcp: {
    title: "List review-request campaigns",
    agencyAware: true,
    limit: { default: 25, max: 200 },
  },
  console: {},
  handler: async (ctx, input) => listCampaigns(ctx, input),
});

export const createCampaignOperation = defineOperation({
  name: "campaign.create",
  operationId: "createCampaign",
  method: "post",
  path: "/v1/campaigns",
  tags,
  summary: "Create a campaign (manager); it starts active",
  request: { body: CreateCampaignBody },
  status: 201,
  output: CampaignSchema,
  errors: stdErrors,
  // REST: API keys may not write campaigns (identity/scopes.ts)
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (ctx, input) => createCampaign(ctx, input),
});

export const getCampaignOperation = defineOperation({
  // campaign.get is the MCP variant below (with templates and sequence)
  name: "campaign.get-by-id",
  operationId: "getCampaign",
  method: "get",
  path: "/v1/campaigns/{id}",
  tags,
  summary: "Get a campaign",
  request: { params: IdParam },
  output: CampaignSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  console: {},
  handler: async (ctx, input) => getCampaign(ctx, input.id),
});

export const updateCampaignOperation = defineOperation({
  name: "campaign.update",
  operationId: "updateCampaign",
  method: "patch",
  path: "/v1/campaigns/{id}",
  tags,
  summary: "Update a campaign (manager)",
  request: { params: IdParam, body: UpdateCampaignBody },
  output: CampaignSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...patch }) => updateCampaign(ctx, id, patch),
});

/** POST /v1/campaigns/{id}/activate and /deactivate: the same move from any state. */
const activation = (action: "activate" | "deactivate") =>
  defineOperation({
    name: `campaign.${action}`,
    operationId: action === "activate" ? "activateCampaign" : "deactivateCampaign",
    method: "post",
    path: `/v1/campaigns/{id}/${action}`,
    tags,
    summary: `${action === "activate" ? "Activate" : "Deactivate"} a campaign from any state (manager)`,
    request: { params: IdParam },
    output: CampaignSchema,
    errors: stdErrorsWithNotFound,
    scopes: [],
    minRole: "manager",
    access: "write",
    idempotent: true,
    console: {},
    handler: async (ctx, input) => setCampaignActive(ctx, input.id, action === "activate"),
  });

export const activateCampaignOperation = activation("activate");
export const deactivateCampaignOperation = activation("deactivate");

export const getCampaignWithContentOperation = defineOperation({
  name: "campaign.get",
  summary: "Get a campaign with its templates and sequence",
  description:
    "One campaign with its bound message templates (per channel, locale and experiment variant) and its drip " +
    "sequence (null when none).",
  input: z.object({ campaignId: z.string().min(1).max(64) }),
  output: CampaignSchema.extend({ templates: z.array(BindingSchema), sequence: SequenceSchema.nullable() }),
  scopes: ["read:campaigns"],
  access: "read",
  variantOf: {
    operationId: "getCampaign",
    why: "the campaign with its bound templates and its sequence in one answer (REST: three routes)",
  },
  mcp: { title: "Get a campaign with its templates and sequence" },
  handler: async (ctx, input) => {
    const campaign = toCampaign(await findCampaignRow(ctx, input.campaignId));
    const [templates, sequence] = await Promise.all([
      listBindings(ctx, input.campaignId),
      getSequence(ctx, input.campaignId),
    ]);
    return { ...campaign, templates, sequence };
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listCampaignsOperation,
  createCampaignOperation,
  getCampaignOperation,
  updateCampaignOperation,
  activateCampaignOperation,
  deactivateCampaignOperation,
  getCampaignWithContentOperation,
  ...bindingsOperations,
  ...sequencesOperations,
  ...sendOperations,
];

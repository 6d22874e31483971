import { z } from "@hono/zod-openapi";
import { paged, stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { BindingSchema } from "./bindings.schemas";
import { listBindings } from "./bindings.service";
import { CampaignListQuery, CampaignSchema, toCampaign } from "./schemas";
import { SequenceSchema } from "./sequences.schemas";
import { getSequence } from "./sequences.service";
import { findCampaignRow, listCampaigns } from "./service";

// The campaigns operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const listCampaignsOperation = defineOperation({
  name: "campaign.list",
  operationId: "listCampaigns",
  method: "get",
  path: "/v1/campaigns",
  tags: ["Campaigns"],
  summary: "List campaigns, newest first",
  description:
    "Lists review-request campaigns, newest first: name, type (one_time, drip, ...), channels, whether active, " +
    "dates and where customers are sent (reviewDestination). Filter by locationId, brandId or isActive.",
  request: { query: CampaignListQuery },
  output: paged(CampaignSchema).openapi("CampaignPage"),
  errors: stdErrors,
  scopes: ["read:campaigns"],
  access: "read",
  mcp: {
    title: "List review-request campaigns",
    agencyAware: true,
    limit: { default: 25, max: 200 },
    describe: {
      locationId: "only campaigns of this location",
      brandId: "only campaigns of this brand",
      isActive: "true: running campaigns only",
      cursor: "pageInfo.endCursor from the previous page",
    },
  },
  handler: async (ctx, input) => listCampaigns(ctx, input),
});

export const getCampaignWithContentOperation = defineOperation({
  name: "campaign.get",
  summary: "Get a campaign with its templates and sequence",
  description:
    "Returns one campaign with the message templates bound to it (per channel, locale and experiment variant) " +
    "and its drip sequence (steps with channel, delay in days and template), or sequence null when it has none.",
  input: z.object({ campaignId: z.string().min(1).max(64).describe("the campaign's id (from campaign.list)") }),
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
export const operations: Operation[] = [listCampaignsOperation, getCampaignWithContentOperation];

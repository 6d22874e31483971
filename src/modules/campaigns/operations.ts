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
  handler: async (ctx, input) => listCampaigns(ctx, input),
});

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
export const operations: Operation[] = [listCampaignsOperation, getCampaignWithContentOperation];

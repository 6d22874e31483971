import { z } from "@hono/zod-openapi";
import { listBindings } from "../../campaigns/bindings.service";
import { toCampaign } from "../../campaigns/schemas";
import { getSequence } from "../../campaigns/sequences.service";
import { findCampaignRow, listCampaigns } from "../../campaigns/service";
import { skill } from "./registry";

export const campaignListSkill = skill({
  name: "campaign.list",
  title: "List review-request campaigns",
  description:
    "Lists review-request campaigns, newest first: name, type (one_time, drip, ...), channels, whether active, " +
    "dates and where customers are sent (reviewDestination). Filter by locationId, brandId or isActive.",
  input: z.object({
    locationId: z.string().max(64).optional().describe("only campaigns of this location"),
    brandId: z.string().max(64).optional().describe("only campaigns of this brand"),
    isActive: z.boolean().optional().describe("true: running campaigns only"),
    limit: z.number().int().min(1).max(200).default(25).describe("page size, 1 to 200 (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  scopes: ["read:campaigns"],
  access: "read",
  agencyAware: true,
  handler: async (ctx, input) => listCampaigns(ctx, input),
});

export const campaignGetSkill = skill({
  name: "campaign.get",
  title: "Get a campaign with its templates and sequence",
  description:
    "Returns one campaign with the message templates bound to it (per channel, locale and experiment variant) " +
    "and its drip sequence (steps with channel, delay in days and template), or sequence null when it has none.",
  input: z.object({ campaignId: z.string().min(1).max(64).describe("the campaign's id (from campaign.list)") }),
  scopes: ["read:campaigns"],
  access: "read",
  handler: async (ctx, input) => {
    const campaign = toCampaign(await findCampaignRow(ctx, input.campaignId));
    const [templates, sequence] = await Promise.all([listBindings(ctx, input.campaignId), getSequence(ctx, input.campaignId)]);
    return { ...campaign, templates, sequence };
  },
});

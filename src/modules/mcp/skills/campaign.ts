import { z } from "@hono/zod-openapi";
import { listBindings } from "../../campaigns/bindings.service";
import { toCampaign } from "../../campaigns/schemas";
import { getSequence } from "../../campaigns/sequences.service";
import { findCampaignRow } from "../../campaigns/service";
import { skill } from "./registry";

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
    const [templates, sequence] = await Promise.all([
      listBindings(ctx, input.campaignId),
      getSequence(ctx, input.campaignId),
    ]);
    return { ...campaign, templates, sequence };
  },
});

import { paged, stdErrors } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { CampaignListQuery, CampaignSchema } from "./schemas";
import { listCampaigns } from "./service";

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

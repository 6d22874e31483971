import { stdErrors } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { listSolicitations } from "./list";
import { SolicitationListQuery, SolicitationPageSchema } from "./schemas";

// The solicitation operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const listSolicitationsOperation = defineOperation({
  name: "solicitation.list",
  operationId: "listSolicitations",
  method: "get",
  path: "/v1/solicitations",
  tags: ["Solicitations"],
  summary: "Review requests sent (or refused by the sending policy), newest first",
  description:
    "Lists the review requests (solicitations) of the business, newest first, each with its contact, channel, status " +
    "(PENDING, SENT, DELIVERED, FAILED, BOUNCED, BLOCKED), the times it was sent, delivered, clicked and converted, its " +
    "campaign, and why it failed (failureReason) or why the sending policy refused it (blockedReason: TENANT_PAUSED, " +
    "SUPPRESSED, MISSING_ADDRESS, NO_CONSENT, QUIET_HOURS, FREQUENCY_CAP_DAILY, FREQUENCY_CAP_WEEKLY). Filter by status, " +
    "channel, campaign, contact, location, blockedReason and a time range (from inclusive, to exclusive).",
  request: { query: SolicitationListQuery },
  output: SolicitationPageSchema,
  errors: stdErrors,
  scopes: ["read:campaigns"],
  access: "read",
  mcp: {
    title: "List review requests (solicitations)",
    limit: { default: 25, max: 100 },
    describe: {
      status: "only requests in this status (BLOCKED: refused by the sending policy)",
      blockedReason: "only requests the policy refused for this reason",
      campaignId: "only this campaign's requests (from campaign.list)",
      contactId: "only the requests sent to this contact (from contact.list)",
      from: "created at or after this date-time",
      to: "created before this date-time",
      cursor: "pageInfo.endCursor from the previous page",
    },
  },
  handler: (ctx, input) => listSolicitations(ctx, input),
});

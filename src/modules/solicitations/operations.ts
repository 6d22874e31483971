import { stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { ContactIdParam } from "../contacts/schemas";
import { findContactRow } from "../contacts/service";
import { listRefusals, listSolicitations } from "./list";
import {
  ContactSolicitationsQuery,
  RefusalListQuery,
  RefusalPageSchema,
  SolicitationListQuery,
  SolicitationPageSchema,
} from "./schemas";

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

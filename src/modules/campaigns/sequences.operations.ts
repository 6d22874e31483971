import { IdParam, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { PutSequenceBody, SequenceSchema } from "./sequences.schemas";
import { deleteSequence, getSequence, putSequence } from "./sequences.service";

// A campaign's drip sequence in the catalogue (src/lib/operation.ts): the read for read:campaigns,
// writes for a manager signed in (API keys may not write campaigns, identity/scopes.ts).

const tags = ["Campaigns"];

export const getCampaignSequenceOperation = defineOperation({
  name: "campaign.sequence",
  operationId: "getCampaignSequence",
  method: "get",
  path: "/v1/campaigns/{id}/sequence",
  tags,
  summary: "The campaign's sequence, or null",
  request: { params: IdParam },
  output: SequenceSchema.nullable(),
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  console: {},
  handler: async (ctx, input) => getSequence(ctx, input.id),
});

export const updateCampaignSequenceOperation = defineOperation({
  name: "campaign.put-sequence",
  operationId: "updateCampaignSequence",
  method: "put",
  path: "/v1/campaigns/{id}/sequence",
  tags,
  summary: "Create or replace the sequence (manager)",
  description:
    "The steps given replace all steps. stepIndex is unique, delayDays 0 to 365, at most 50 steps; each step's channel " +
    "must be one of the campaign's and its template (optional) this tenant's, not archived, on that channel.",
  request: { params: IdParam, body: PutSequenceBody },
  output: SequenceSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  idempotent: true,
  console: {},
  handler: async (ctx, { id, ...body }) => putSequence(ctx, id, body),
});

export const deleteCampaignSequenceOperation = defineOperation({
  name: "campaign.delete-sequence",
  operationId: "deleteCampaignSequence",
  method: "delete",
  path: "/v1/campaigns/{id}/sequence",
  tags,
  summary: "Delete the sequence (manager)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await deleteSequence(ctx, input.id);
  },
});

/** Spread into the campaigns module's operations (campaigns/operations.ts). */
export const operations: Operation[] = [
  getCampaignSequenceOperation,
  updateCampaignSequenceOperation,
  deleteCampaignSequenceOperation,
];

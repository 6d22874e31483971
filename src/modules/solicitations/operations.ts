import { errors, IdParam, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation, reply } from "../../lib/operation";
import { ContactIdParam } from "../contacts/schemas";
import { findContactRow } from "../contacts/service";
import { listRefusals, listSolicitations } from "./list";
import {
  ContactSolicitationsQuery,
  CreateSolicitationBody,
  IdempotencyKeyHeader,
  RefusalListQuery,
  RefusalPageSchema,
  SolicitationListQuery,
  SolicitationPageSchema,
  SolicitationSchema,
} from "./schemas";
import { createSolicitation, getSolicitation } from "./service";

export const createSolicitationOperation = defineOperation({
  name: "solicitation.create",
  operationId: "createSolicitation",
  method: "post",
  path: "/v1/solicitations",
  tags: ["Solicitations"],
  summary: "Request a review from one contact (tenant_user); delivered off the request path",
  description:
    "Requires `Idempotency-Key` (400 IDEMPOTENCY_KEY_REQUIRED without it). The same key with the same body within 24 hours " +
    "replays the first response (header `Idempotent-Replayed: true`) and creates nothing; with another body it is 422 " +
    "IDEMPOTENCY_KEY_REUSED; while the first request is still running a duplicate waits for its answer (up to 10 s, then 409 CONFLICT). " +
    "Frequency caps hold under any concurrency (checked again in the batch that writes the send). A send the policy blocks is still " +
    "created, with status BLOCKED and blockedReason, and answered 201.",
  // the Idempotency-Key header is an input field like the others ("idempotency-key")
  request: { headers: IdempotencyKeyHeader, body: CreateSolicitationBody },
  status: 201,
  statusText: "Created (PENDING, or BLOCKED by policy)",
  output: SolicitationSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409], 422: errors[422] },
  // REST: API keys may not send (identity/scopes.ts)
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  openWorld: true,
  handler: async (ctx, { "idempotency-key": key, ...body }) => {
    const result = await createSolicitation(ctx, key, body);
    return reply(result.body, {
      status: result.status,
      ...(result.replayed ? { headers: { "Idempotent-Replayed": "true" } } : {}),
    });
  },
});

export const getSolicitationOperation = defineOperation({
  name: "solicitation.get",
  operationId: "getSolicitation",
  method: "get",
  path: "/v1/solicitations/{id}",
  tags: ["Solicitations"],
  summary: "Get a solicitation",
  request: { params: IdParam },
  output: SolicitationSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:campaigns"],
  access: "read",
  handler: async (ctx, input) => getSolicitation(ctx, input.id),
});

export const listSolicitationsOperation = defineOperation({
  name: "solicitation.list",
  operationId: "listSolicitations",
  method: "get",
  path: "/v1/solicitations",
  tags: ["Solicitations"],
  summary: "Review requests sent (or refused by the sending policy), newest first",
  description:
    "The business's review requests (solicitations), newest first, with contact, status and timestamps, and why one " +
    "failed (failureReason) or the sending policy refused it (BLOCKED, blockedReason). Created from (inclusive) to (exclusive).",
  request: { query: SolicitationListQuery },
  output: SolicitationPageSchema,
  errors: stdErrors,
  scopes: ["read:campaigns"],
  access: "read",
  mcp: {
    title: "List review requests (solicitations)",
    limit: { default: 25, max: 100 },
  },
  console: {},
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
  console: {},
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
  console: {},
  handler: (ctx, input) => listRefusals(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  createSolicitationOperation,
  getSolicitationOperation,
  listSolicitationsOperation,
  listContactSolicitationsOperation,
  listRefusalsOperation,
];

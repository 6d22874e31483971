import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { addAgencyAdmin, createAgency, listAgencies } from "./agencies.service";
import {
  AddAgencyAdminBody,
  AgencyAdminGrantSchema,
  AgencyListQuery,
  AgencySchema,
  CreateAgencyBody,
  CreatedAgencySchema,
} from "./schemas";

// The platform admin's agencies (/admin, platform_admin): create one (with its first agency_admin), grant
// another admin, list them. API keys never reach /admin (scopes: []).

const tags = ["Admin"];

export const createAdminAgencyOperation = defineOperation({
  name: "platform.create-agency",
  context: "platform",
  operationId: "createAdminAgency",
  method: "post",
  path: "/admin/agencies",
  tags,
  summary: "Create an agency (platform_admin)",
  description:
    "With adminEmail, the first agency_admin is provisioned in the same batch: a new account is emailed an invite (7 days); an existing account is granted the role.",
  request: { body: CreateAgencyBody },
  status: 201,
  output: CreatedAgencySchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, input) => createAgency(ctx, input),
});

export const addAdminAgencyAdminOperation = defineOperation({
  name: "platform.add-agency-admin",
  context: "platform",
  operationId: "addAdminAgencyAdmin",
  method: "post",
  path: "/admin/agencies/{id}/admins",
  tags,
  summary: "Grant another agency_admin (platform_admin)",
  request: { params: IdParam, body: AddAgencyAdminBody },
  status: 201,
  statusText: "Granted",
  output: AgencyAdminGrantSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  access: "write",
  console: {},
  handler: async (ctx, { id, ...body }) => addAgencyAdmin(ctx, id, body),
});

export const listAdminAgenciesOperation = defineOperation({
  name: "platform.list-agencies",
  context: "platform",
  operationId: "listAdminAgencies",
  method: "get",
  path: "/admin/agencies",
  tags,
  summary: "List agencies, newest first (platform_admin)",
  request: { query: AgencyListQuery },
  output: paged(AgencySchema).openapi("AgencyPage"),
  errors: stdErrors,
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, input) => listAgencies(ctx, input),
});

export const agencyOperations = [createAdminAgencyOperation, addAdminAgencyAdminOperation, listAdminAgenciesOperation];

import { z } from "@hono/zod-openapi";
import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { refreshCompetitor } from "./refresh";
import { CompetitorListQuery, CompetitorSchema, CreateCompetitorBody, UpdateCompetitorBody } from "./schemas";
import {
  createCompetitor,
  deleteCompetitor,
  getCompetitor,
  listCompetitors,
  listCompetitorsForSkill,
  updateCompetitor,
} from "./service";

// The competitors' operations in the catalogue (src/lib/operation.ts): REST for every role to read and
// managers to change; API keys read them with read:competitors (identity/scopes.ts).

const tags = ["Competitors"];

export const listCompetitorsOperation = defineOperation({
  name: "competitor.list-page",
  operationId: "listCompetitors",
  method: "get",
  path: "/v1/competitors",
  tags,
  summary: "List tracked competitors, newest first",
  request: { query: CompetitorListQuery },
  output: paged(CompetitorSchema).openapi("CompetitorPage"),
  errors: stdErrors,
  scopes: ["read:competitors"],
  access: "read",
  handler: async (ctx, input) => listCompetitors(ctx, input),
});

export const createCompetitorOperation = defineOperation({
  name: "competitor.create",
  operationId: "createCompetitor",
  method: "post",
  path: "/v1/competitors",
  tags,
  summary: "Track a competitor of a location (manager)",
  request: { body: CreateCompetitorBody },
  status: 201,
  output: CompetitorSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => createCompetitor(ctx, input),
});

export const getCompetitorOperation = defineOperation({
  name: "competitor.get",
  operationId: "getCompetitor",
  method: "get",
  path: "/v1/competitors/{id}",
  tags,
  summary: "Get a competitor",
  request: { params: IdParam },
  output: CompetitorSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:competitors"],
  access: "read",
  handler: async (ctx, input) => getCompetitor(ctx, input.id),
});

export const updateCompetitorOperation = defineOperation({
  name: "competitor.update",
  operationId: "updateCompetitor",
  method: "patch",
  path: "/v1/competitors/{id}",
  tags,
  summary: "Update a competitor (manager)",
  request: { params: IdParam, body: UpdateCompetitorBody },
  output: CompetitorSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...patch }) => updateCompetitor(ctx, id, patch),
});

export const deleteCompetitorOperation = defineOperation({
  name: "competitor.delete",
  operationId: "deleteCompetitor",
  method: "delete",
  path: "/v1/competitors/{id}",
  tags,
  summary: "Stop tracking a competitor (manager)",
  request: { params: IdParam },
  status: 204,
  statusText: "Deleted",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  destructive: true,
  handler: async (ctx, input) => {
    await deleteCompetitor(ctx, input.id);
  },
});

export const refreshCompetitorOperation = defineOperation({
  name: "competitor.refresh",
  operationId: "refreshCompetitor",
  method: "post",
  path: "/v1/competitors/{id}/refresh",
  tags,
  summary: "Refresh rating and review count now (manager)",
  description:
    "Reads Yelp Fusion GET /v3/businesses/{yelpBusinessId} with the tenant's Yelp integration key. lastRefreshStatus: ok, error (the site's message in lastRefreshError), no_connection, no_site_ids. A sweep refreshes every competitor daily.",
  request: { params: IdParam },
  output: CompetitorSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  openWorld: true,
  handler: async (ctx, input) => refreshCompetitor(ctx, input.id),
});

export const competitorListOperation = defineOperation({
  name: "competitor.list",
  summary: "Tracked competitors",
  description:
    "Competitors tracked for the business's locations, with their average rating and review count where known.",
  input: z.object({
    locationId: z.string().max(64).optional(),
    limit: z.number().int().min(1).max(100).default(25),
  }),
  output: z.object({
    data: z.array(
      z.object({
        id: z.string(),
        locationId: z.string(),
        name: z.string(),
        averageRating: z.number().nullable(),
        reviewCount: z.number().int().nullable(),
        bySite: z.record(z.string(), z.unknown()),
        siteIds: z.record(z.string(), z.string().nullable()),
        lastRefreshedAt: z.string().nullable(),
      }),
    ),
  }),
  scopes: ["read:competitors"],
  access: "read",
  variantOf: {
    operationId: "listCompetitors",
    why: "the MCP answer carries bySite and siteIds per competitor, unpaged; GET /v1/competitors answers a cursor page of records",
  },
  mcp: { title: "Tracked competitors" },
  handler: async (ctx, input) => ({ data: await listCompetitorsForSkill(ctx, input) }),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listCompetitorsOperation,
  createCompetitorOperation,
  getCompetitorOperation,
  updateCompetitorOperation,
  deleteCompetitorOperation,
  refreshCompetitorOperation,
  competitorListOperation,
];

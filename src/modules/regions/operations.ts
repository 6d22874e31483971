import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { CreateRegionBody, RegionListQuery, RegionSchema, UpdateRegionBody } from "./schemas";
import { createRegion, deleteRegion, getRegion, listRegions, updateRegion } from "./service";

// The regions' operations in the catalogue (src/lib/operation.ts): every role reads them (API keys with
// read:locations, identity/scopes.ts), managers change them.

const tags = ["Regions"];

export const listRegionsOperation = defineOperation({
  name: "region.list",
  operationId: "listRegions",
  method: "get",
  path: "/v1/regions",
  tags,
  summary: "List regions, newest first",
  request: { query: RegionListQuery },
  output: paged(RegionSchema).openapi("RegionPage"),
  errors: stdErrors,
  scopes: ["read:locations"],
  access: "read",
  console: {},
  handler: async (ctx, input) => listRegions(ctx, input),
});

export const createRegionOperation = defineOperation({
  name: "region.create",
  operationId: "createRegion",
  method: "post",
  path: "/v1/regions",
  tags,
  summary: "Create a region (manager)",
  request: { body: CreateRegionBody },
  status: 201,
  output: RegionSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  handler: async (ctx, input) => createRegion(ctx, input),
});

export const getRegionOperation = defineOperation({
  name: "region.get",
  operationId: "getRegion",
  method: "get",
  path: "/v1/regions/{id}",
  tags,
  summary: "Get a region",
  request: { params: IdParam },
  output: RegionSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:locations"],
  access: "read",
  handler: async (ctx, input) => getRegion(ctx, input.id),
});

export const updateRegionOperation = defineOperation({
  name: "region.update",
  operationId: "updateRegion",
  method: "patch",
  path: "/v1/regions/{id}",
  tags,
  summary: "Rename or recode a region (manager)",
  request: { params: IdParam, body: UpdateRegionBody },
  output: RegionSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...patch }) => updateRegion(ctx, id, patch),
});

export const deleteRegionOperation = defineOperation({
  name: "region.delete",
  operationId: "deleteRegion",
  method: "delete",
  path: "/v1/regions/{id}",
  tags,
  summary: "Delete a region (manager); its locations are kept with no region",
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
    await deleteRegion(ctx, input.id);
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listRegionsOperation,
  createRegionOperation,
  getRegionOperation,
  updateRegionOperation,
  deleteRegionOperation,
];

import { IdParam, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { LocationVariablesSchema, PutLocationVariablesBody } from "./variables.schemas";
import { getLocationVariables, putLocationVariables } from "./variables.service";

// A location's custom template variables in the catalogue (src/lib/operation.ts); spread into the
// templates module's `operations`.

export const getLocationVariablesOperation = defineOperation({
  name: "location.variables",
  operationId: "getLocationVariables",
  method: "get",
  path: "/v1/locations/{id}/variables",
  tags: ["Locations"],
  summary: "A location's custom template variables",
  request: { params: IdParam },
  output: LocationVariablesSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:locations"],
  access: "read",
  handler: async (ctx, input) => getLocationVariables(ctx, input.id),
});

export const updateLocationVariablesOperation = defineOperation({
  name: "location.update-variables",
  operationId: "updateLocationVariables",
  method: "put",
  path: "/v1/locations/{id}/variables",
  tags: ["Locations"],
  summary: "Replace a location's custom template variables (manager)",
  description: "Each key becomes a template token {{key}}. Keys are token names and may not shadow a built-in token.",
  request: { params: IdParam, body: PutLocationVariablesBody },
  output: LocationVariablesSchema,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "manager",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...body }) => putLocationVariables(ctx, id, body),
});

export const variableOperations: Operation[] = [getLocationVariablesOperation, updateLocationVariablesOperation];

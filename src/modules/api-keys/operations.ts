import { IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, noContent, type Operation } from "../../lib/operation";
import { ApiKeyListQuery, ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from "./schemas";
import { createApiKey, listApiKeys, revokeApiKey } from "./service";

// The tenant's API keys in the catalogue (src/lib/operation.ts): tenant_admin only, and closed to API
// keys themselves (no scope admits them: identity/scopes.ts).

const tags = ["API keys"];

export const createApiKeyOperation = defineOperation({
  name: "api-key.create",
  operationId: "createApiKey",
  method: "post",
  path: "/v1/api-keys",
  tags,
  summary: "Mint an API key for this tenant (tenant_admin); the raw key is returned only here",
  description:
    "Keys start with `rk_live_`, authenticate as the tenant (x-tenant-id must name it) and reach only the REST routes their scopes open (docs/agency.md). Default scopes: every read:* scope.",
  request: { body: CreateApiKeyBody },
  status: 201,
  output: CreatedApiKeySchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: async (ctx, input) => createApiKey(ctx, input),
});

export const listApiKeysOperation = defineOperation({
  name: "api-key.list",
  operationId: "listApiKeys",
  method: "get",
  path: "/v1/api-keys",
  tags,
  summary: "List the tenant's live API keys (tenant_admin), without the raw key",
  request: { query: ApiKeyListQuery },
  output: paged(ApiKeySchema).openapi("ApiKeyPage"),
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "read",
  console: {},
  handler: async (ctx, input) => listApiKeys(ctx, input),
});

export const deleteApiKeyOperation = defineOperation({
  name: "api-key.revoke",
  operationId: "deleteApiKey",
  method: "delete",
  path: "/v1/api-keys/{id}",
  tags,
  summary: "Revoke an API key (tenant_admin); effective everywhere within 60 seconds",
  request: { params: IdParam },
  status: 204,
  statusText: "Revoked",
  output: noContent,
  errors: stdErrorsWithNotFound,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  console: {},
  handler: async (ctx, input) => {
    await revokeApiKey(ctx, input.id);
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [createApiKeyOperation, listApiKeysOperation, deleteApiKeyOperation];

import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  IdParam,
  json,
  jsonBody,
  paged,
  type Router,
  stdErrors,
  stdErrorsWithNotFound,
  TENANT_SECURITY,
} from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { ApiKeyListQuery, ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from "./schemas";
import { createApiKey, listApiKeys, revokeApiKey } from "./service";

const tags = ["API keys"];
const middleware = [canAdminister];

const create = createRoute({
  method: "post",
  path: "/v1/api-keys",
  operationId: "createApiKey",
  tags,
  security: TENANT_SECURITY,
  middleware,
  summary: "Mint an API key for this tenant (tenant_admin); the raw key is returned only here",
  description:
    "Keys start with `rk_live_`, authenticate as the tenant (x-tenant-id must name it) and reach only the REST routes their scopes open (docs/agency.md). Default scopes: every read:* scope.",
  request: { body: jsonBody(CreateApiKeyBody) },
  responses: { 201: json(CreatedApiKeySchema, "Created"), ...stdErrors },
});

const list = createRoute({
  method: "get",
  path: "/v1/api-keys",
  operationId: "listApiKeys",
  tags,
  security: TENANT_SECURITY,
  middleware,
  summary: "List the tenant's live API keys (tenant_admin), without the raw key",
  request: { query: ApiKeyListQuery },
  responses: { 200: json(paged(ApiKeySchema).openapi("ApiKeyPage")), ...stdErrors },
});

const revoke = createRoute({
  method: "delete",
  path: "/v1/api-keys/{id}",
  operationId: "deleteApiKey",
  tags,
  security: TENANT_SECURITY,
  middleware,
  summary: "Revoke an API key (tenant_admin); effective everywhere within 60 seconds",
  request: { params: IdParam },
  responses: { 204: { description: "Revoked" }, ...stdErrorsWithNotFound },
});

export const apiKeyRoutes: Router = createRouter()
  .openapi(create, async (c) => c.json(await createApiKey(svc(c), c.req.valid("json")), 201))
  .openapi(list, async (c) => c.json(await listApiKeys(svc(c), c.req.valid("query")), 200))
  .openapi(revoke, async (c) => {
    await revokeApiKey(svc(c), c.req.valid("param").id);
    return c.body(null, 204);
  });

import { createRoute } from "@hono/zod-openapi";
import {
  createRouter,
  errors,
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
import { BrandListQuery, BrandSchema, CreateBrandBody, UpdateBrandBody } from "./schemas";
import { createBrand, getBrand, listBrands, updateBrand } from "./service";

const tags = ["Brands"];

const list = createRoute({
  method: "get",
  path: "/v1/brands",
  operationId: "listBrands",
  tags,
  security: TENANT_SECURITY,
  summary: "List brands",
  request: { query: BrandListQuery },
  responses: { 200: json(paged(BrandSchema).openapi("BrandPage")), ...stdErrors },
});

const create = createRoute({
  method: "post",
  path: "/v1/brands",
  tags,
  security: TENANT_SECURITY,
  summary: "Create a brand (tenant_admin)",
  operationId: "createBrand",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(CreateBrandBody) },
  responses: { 201: json(BrandSchema, "Created"), ...stdErrors, 409: errors[409] },
});

const get = createRoute({
  method: "get",
  path: "/v1/brands/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Get a brand",
  operationId: "getBrand",
  request: { params: IdParam },
  responses: { 200: json(BrandSchema), ...stdErrorsWithNotFound },
});

const update = createRoute({
  method: "patch",
  path: "/v1/brands/{id}",
  tags,
  security: TENANT_SECURITY,
  summary: "Update a brand (tenant_admin)",
  operationId: "updateBrand",
  middleware: [canAdminister] as const,
  request: { params: IdParam, body: jsonBody(UpdateBrandBody) },
  responses: { 200: json(BrandSchema), ...stdErrorsWithNotFound, 409: errors[409] },
});

export const brandRoutes: Router = createRouter()
  .openapi(list, async (c) => c.json(await listBrands(svc(c), c.req.valid("query")), 200))
  .openapi(create, async (c) => c.json(await createBrand(svc(c), c.req.valid("json")), 201))
  .openapi(get, async (c) => c.json(await getBrand(svc(c), c.req.valid("param").id), 200))
  .openapi(update, async (c) => c.json(await updateBrand(svc(c), c.req.valid("param").id, c.req.valid("json")), 200));

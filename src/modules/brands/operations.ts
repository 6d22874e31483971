import { z } from "@hono/zod-openapi";
import { notFound } from "../../lib/errors";
import { errors, IdParam, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { BrandListQuery, BrandSchema, CreateBrandBody, UpdateBrandBody } from "./schemas";
import { createBrand, getBrand, listBrands, updateBrand } from "./service";

// The brands' operations in the catalogue (src/lib/operation.ts).

const tags = ["Brands"];

export const listBrandsOperation = defineOperation({
  name: "brand.list",
  operationId: "listBrands",
  method: "get",
  path: "/v1/brands",
  tags,
  summary: "List brands",
  request: { query: BrandListQuery },
  output: paged(BrandSchema).openapi("BrandPage"),
  errors: stdErrors,
  scopes: ["read:locations"],
  access: "read",
  console: {},
  handler: async (ctx, input) => listBrands(ctx, input),
});

export const createBrandOperation = defineOperation({
  name: "brand.create",
  operationId: "createBrand",
  method: "post",
  path: "/v1/brands",
  tags,
  summary: "Create a brand (tenant_admin)",
  request: { body: CreateBrandBody },
  status: 201,
  output: BrandSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  handler: async (ctx, input) => createBrand(ctx, input),
});

export const getBrandOperation = defineOperation({
  // brand.get is the agents' variant below (its brandId optional)
  name: "brand.get-by-id",
  operationId: "getBrand",
  method: "get",
  path: "/v1/brands/{id}",
  tags,
  summary: "Get a brand",
  request: { params: IdParam },
  output: BrandSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:locations"],
  access: "read",
  handler: async (ctx, input) => getBrand(ctx, input.id),
});

export const updateBrandOperation = defineOperation({
  name: "brand.update",
  operationId: "updateBrand",
  method: "patch",
  path: "/v1/brands/{id}",
  tags,
  summary: "Update a brand (tenant_admin)",
  request: { params: IdParam, body: UpdateBrandBody },
  output: BrandSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  handler: async (ctx, { id, ...patch }) => updateBrand(ctx, id, patch),
});

export const brandForAgentsOperation = defineOperation({
  name: "brand.get",
  summary: "A brand's name, voice and tone; without brandId the tenant's default (oldest) brand.",
  input: z.object({ brandId: z.string().min(1).max(64).optional() }),
  output: BrandSchema,
  scopes: ["read:locations"],
  access: "read",
  variantOf: {
    operationId: "getBrand",
    why: "brandId is optional (none: the tenant's default, oldest brand, what a template generator writes for); GET /v1/brands/{id} needs the id",
  },
  agent: { scopes: ["read:locations"] },
  handler: async (ctx, i) => {
    if (i.brandId) return getBrand(ctx, i.brandId);
    const page = await listBrands(ctx, { limit: 200 });
    const oldest = page.data[page.data.length - 1];
    if (!oldest) throw notFound("Brand");
    return oldest;
  },
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listBrandsOperation,
  createBrandOperation,
  getBrandOperation,
  updateBrandOperation,
  brandForAgentsOperation,
];

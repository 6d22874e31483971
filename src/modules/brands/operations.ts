import { z } from "@hono/zod-openapi";
import { notFound } from "../../lib/errors";
import { defineOperation, type Operation } from "../../lib/operation";
import { BrandSchema } from "./schemas";
import { getBrand, listBrands } from "./service";

// The brands' operations in the catalogue (src/lib/operation.ts).

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
export const operations: Operation[] = [brandForAgentsOperation];

import { z } from "@hono/zod-openapi";
import type { apiKeys } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { API_SCOPES } from "../identity/scopes";

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z
      .string()
      .openapi({ description: "the first characters of the key, to recognise it", example: "rk_live_Ab3dE9fG" }),
    scopes: z.array(z.enum(API_SCOPES)),
    createdAt: DateTime,
    expiresAt: DateTime.nullable(),
    lastUsedAt: DateTime.nullable().openapi({ description: "updated at most once a minute" }),
  })
  .openapi("ApiKey");

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "the raw key; shown only in this response" }),
}).openapi("CreatedApiKey");

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(API_SCOPES)).min(1).optional().openapi({ description: "default: every read:* scope" }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .refine((s) => Date.parse(s) > Date.now(), { message: "Must be in the future" })
      .optional(),
  })
  .openapi("CreateApiKeyRequest");

export const ApiKeyListQuery = PageQuerySchema;

export type CreateApiKeyInput = z.infer<typeof CreateApiKeyBody>;
export type ApiKeyDto = z.infer<typeof ApiKeySchema>;

export const toApiKey = (k: typeof apiKeys.$inferSelect): ApiKeyDto => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes as ApiKeyDto["scopes"],
  createdAt: k.createdAt,
  expiresAt: k.expiresAt,
  lastUsedAt: k.lastUsedAt,
});

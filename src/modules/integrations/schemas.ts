import { z } from "@hono/zod-openapi";
import type { integrations } from "../../db/schema";
import { SYNC_STATUSES } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { HttpUrl } from "../../lib/validators";
import { REVIEW_SITES } from "../../providers/review-sites";

export const IntegrationSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    locationId: z.string().nullable(),
    connectorType: z.string().openapi({ example: "google" }),
    name: z.string(),
    isEnabled: z.boolean(),
    isSandbox: z.boolean(),
    config: z.record(z.string(), z.unknown()),
    hasCredentials: z.boolean().openapi({ description: "credentials are write-only and never returned" }),
    lastSyncAt: DateTime.nullable(),
    lastSyncStatus: z.enum(SYNC_STATUSES).nullable(),
    lastSyncError: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Integration");

const Config = z
  .record(z.string().max(64), z.unknown())
  .refine((c) => JSON.stringify(c).length <= 8_000, { message: "config is limited to 8,000 characters" })
  .openapi({
    description:
      "Site ids: google {accountId, locationId}; trustpilot {businessUnitId, businessUserId}; yelp {businessId}; facebook {pageId, graphVersion?}. " +
      "apiBaseUrl / partnerApiBaseUrl are honoured only when isSandbox is true (stand-ins for tests).",
    example: { accountId: "1234567890", locationId: "9876543210" },
  });

const Credentials = z.record(z.string().max(64), z.string().min(1).max(4096)).openapi({
  description: "write-only secrets: google/trustpilot {accessToken}; yelp {apiKey, partnerAccessToken?}; facebook {pageAccessToken}",
});

export const CreateIntegrationBody = z
  .object({
    connectorType: z.enum(REVIEW_SITES),
    name: z.string().trim().min(1).max(200),
    locationId: z.string().min(1).nullable().optional(),
    isEnabled: z.boolean().optional(),
    isSandbox: z.boolean().optional(),
    config: Config.default({}),
    credentials: Credentials.optional(),
  })
  .openapi("CreateIntegrationRequest");

export const UpdateIntegrationBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    locationId: z.string().min(1).nullable(),
    isEnabled: z.boolean(),
    isSandbox: z.boolean(),
    config: Config,
    credentials: Credentials,
  })
  .partial()
  .openapi("UpdateIntegrationRequest");

export const IntegrationListQuery = PageQuerySchema.extend({
  connectorType: z.string().max(40).optional(),
  locationId: z.string().optional(),
});

export const BaseUrlField = HttpUrl;

export type CreateIntegrationInput = z.infer<typeof CreateIntegrationBody>;
export type UpdateIntegrationInput = z.infer<typeof UpdateIntegrationBody>;
export type IntegrationRow = typeof integrations.$inferSelect;

export const toIntegration = (r: IntegrationRow) => ({
  id: r.id,
  tenantId: r.tenantId,
  locationId: r.locationId,
  connectorType: r.connectorType,
  name: r.name,
  isEnabled: r.isEnabled,
  isSandbox: r.isSandbox,
  config: r.config,
  hasCredentials: r.credentialsEncrypted !== null,
  lastSyncAt: r.lastSyncAt,
  lastSyncStatus: r.lastSyncStatus,
  lastSyncError: r.lastSyncError,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

import { z } from "@hono/zod-openapi";
import type { integrations } from "../../db/schema";
import { REPLY_ACCESS, SYNC_STATUSES } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { HttpUrl } from "../../lib/validators";
import { CRM_SYSTEMS } from "../../providers/crm";
import { REVIEW_SITES } from "../../providers/review-sites";

/** google_business_profile is accepted as another name for google (stored and returned as google). */
export const ConnectorType = z
  .enum([...REVIEW_SITES, "google_business_profile", ...CRM_SYSTEMS])
  .transform((t) => (t === "google_business_profile" ? "google" : t))
  .openapi({
    description:
      "Review sites: google (alias google_business_profile), yelp, facebook, trustpilot. CRMs: hubspot, salesforce.",
  });

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
    needsAttention: z.boolean().openapi({
      description:
        "true when the site said this connection cannot work until a person acts (an API deprecation such as Graph error 12, an expired token, a missing permission); sync stops polling it until the integration is edited or a manual sync succeeds",
    }),
    attention: z.object({ code: z.string(), message: z.string(), since: DateTime }).nullable().openapi({
      description:
        "what needs attention: code (e.g. facebook_api_deprecated, token_invalid, permission_missing, yelp_r2r_not_allowed) and the site's message",
    }),
    replyAccess: z.enum(REPLY_ACCESS).nullable().openapi({
      description:
        "whether the site takes replies by API for this connection: granted after one was accepted, denied when the site refused the feature (Yelp R2R_COMMENTS_NOT_ALLOWED); null until known",
    }),
    lastWebhookAt: DateTime.nullable().openapi({ description: "the last verified webhook from the site (Trustpilot)" }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Integration");

const Config = z
  .record(z.string().max(64), z.unknown())
  .refine((c) => JSON.stringify(c).length <= 8_000, { message: "config is limited to 8,000 characters" })
  .openapi({
    description:
      "Site ids: google {accountId, locationId}; trustpilot {businessUnitId, businessUserId}; yelp {businessId}; facebook {pageId, graphVersion?}; " +
      "hubspot {}; salesforce {instanceUrl (https://<domain>.my.salesforce.com)}. " +
      "apiBaseUrl / partnerApiBaseUrl are honoured only when isSandbox is true (stand-ins for tests).",
    example: { accountId: "1234567890", locationId: "9876543210" },
  });

const Credentials = z.record(z.string().max(64), z.string().min(1).max(4096)).openapi({
  description:
    "write-only secrets: google/trustpilot {accessToken}; yelp {apiKey, partnerAccessToken?}; facebook {pageAccessToken}; " +
    "hubspot {accessToken (private-app token)}; salesforce {accessToken (OAuth)}",
});

export const CreateIntegrationBody = z
  .object({
    connectorType: ConnectorType,
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

export const ConnectionTestSchema = z
  .object({
    ok: z.boolean(),
    connectorType: z.string(),
    checkedAt: DateTime,
    upstreamStatus: z.number().int().nullable().openapi({ description: "the provider's HTTP status when it refused" }),
    message: z.string(),
  })
  .openapi("IntegrationConnectionTest");

export const CrmImportParams = z.object({ integrationId: z.string().min(1).max(64) });
export const CrmImportAcceptedSchema = z
  .object({ jobId: z.string(), status: z.literal("queued") })
  .openapi("CrmImportAccepted");

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
  needsAttention: r.attentionCode !== null,
  attention: r.attentionCode
    ? { code: r.attentionCode, message: r.attentionMessage ?? "", since: r.attentionAt ?? r.updatedAt }
    : null,
  replyAccess: r.replyAccess,
  lastWebhookAt: r.lastWebhookAt,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

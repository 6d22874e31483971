import { z } from "@hono/zod-openapi";
import {
  BLOCKED_REASONS,
  DELIVERY_OUTCOMES,
  MESSAGE_CHANNELS,
  SOLICITATION_STATUSES,
  type solicitations,
} from "../../db/schema";
import { DateTime, PageQuerySchema, paged } from "../../lib/openapi";
import { isYelpUrl, YELP_SOLICITING_FORBIDDEN } from "../../lib/review-solicitation";
import { HttpUrl } from "../../lib/validators";

const Id = z.string().min(1).max(64);
const Metadata = z.record(z.string(), z.unknown());

export const CreateSolicitationBody = z
  .object({
    locationId: Id,
    contactId: Id,
    channel: z.enum(MESSAGE_CHANNELS),
    campaignId: Id.optional(),
    templateId: Id.optional(),
    destinationUrl: HttpUrl.refine((u) => !isYelpUrl(u), { message: YELP_SOLICITING_FORBIDDEN })
      .optional()
      .openapi({
        description: "Where the short link leads instead of the campaign's reviewDestination (never Yelp: 400)",
      }),
    metadata: Metadata.optional(),
  })
  .strict()
  .openapi("CreateSolicitationRequest");

export type CreateSolicitationInput = z.infer<typeof CreateSolicitationBody>;

export const IdempotencyKeyHeader = z.object({
  "idempotency-key": z.string().min(1).max(255).optional().openapi({
    description: "Required. Unique per send (UUID recommended); kept 24 hours per tenant",
    example: "8e03978e-40d5-43e8-bc93-6894a57f9324",
  }),
});

export const SolicitationSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    locationId: z.string(),
    contactId: z.string(),
    campaignId: z.string().nullable(),
    templateId: z.string().nullable(),
    destinationUrl: z.string().nullable(),
    channel: z.enum(MESSAGE_CHANNELS),
    status: z.enum(SOLICITATION_STATUSES),
    shortLinkToken: z.string(),
    blockedReason: z.enum(BLOCKED_REASONS).nullable(),
    providerMessageId: z.string().nullable(),
    sentAt: DateTime.nullable(),
    deliveredAt: DateTime.nullable(),
    clickedAt: DateTime.nullable(),
    convertedAt: DateTime.nullable(),
    idempotencyKey: z.string(),
    metadata: Metadata,
    createdAt: DateTime,
    provider: z
      .string()
      .nullable()
      .openapi({ description: "The provider that took the message (outbox, sendgrid, ...)" }),
    failureReason: z.string().nullable().openapi({ description: "Why a FAILED send failed (the provider's error)" }),
    deliveryOutcome: z
      .enum(DELIVERY_OUTCOMES)
      .nullable()
      .openapi({
        description:
          '"unknown" when the provider was called but the answer was lost (the runtime died mid-call) and neither the provider, the outbox nor a delivery ' +
          "report has told since whether it was accepted: status is then SENT, never resent, never FAILED by the service. null otherwise.",
      }),
    experimentId: z.string().nullable(),
    variantId: z.string().nullable(),
    sequenceStepIndex: z.number().int().nullable(),
    updatedAt: DateTime,
  })
  .openapi("Solicitation");

export type SolicitationRow = typeof solicitations.$inferSelect;
export type SolicitationDto = z.infer<typeof SolicitationSchema>;

export const toSolicitation = (s: SolicitationRow): SolicitationDto => ({
  id: s.id,
  tenantId: s.tenantId,
  locationId: s.locationId,
  contactId: s.contactId,
  campaignId: s.campaignId,
  templateId: s.templateId,
  destinationUrl: s.destinationUrl,
  channel: s.channel,
  status: s.status,
  shortLinkToken: s.shortLinkToken,
  blockedReason: s.blockedReason,
  providerMessageId: s.providerMessageId,
  sentAt: s.sentAt,
  deliveredAt: s.deliveredAt,
  clickedAt: s.clickedAt,
  convertedAt: s.convertedAt,
  idempotencyKey: s.idempotencyKey ?? "",
  metadata: s.metadata,
  createdAt: s.createdAt,
  provider: s.provider,
  failureReason: s.failureReason,
  deliveryOutcome: s.deliveryOutcome,
  experimentId: s.experimentId,
  variantId: s.variantId,
  sequenceStepIndex: s.sequenceStepIndex,
  updatedAt: s.updatedAt,
});

export const SolicitationWithContactSchema = SolicitationSchema.extend({
  contact: z.object({
    id: z.string(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    phone: z.string().nullable(),
  }),
}).openapi("SolicitationWithContact");

/** An instant with its offset (2026-05-01T00:00:00Z, 2026-05-01T02:00:00+02:00); compared in UTC by the service. */
const Instant = z.iso.datetime({ offset: true });

/** The filters every solicitation list shares (the list, a contact's history, the policy's refusals). */
export const SolicitationTimeFilter = z.object({
  from: Instant.optional().openapi({ description: "createdAt >= from (date-time with offset)", format: "date-time" }),
  to: Instant.optional().openapi({ description: "createdAt < to (date-time with offset)", format: "date-time" }),
});
const fromBeforeTo = (q: { from?: string; to?: string }) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to);
const fromBeforeToIssue = { message: "from must be before to", path: ["from"] };

export const SolicitationListQuery = PageQuerySchema.extend({
  status: z.enum(SOLICITATION_STATUSES).optional(),
  channel: z.enum(MESSAGE_CHANNELS).optional(),
  campaignId: z.string().max(64).optional(),
  contactId: z.string().max(64).optional(),
  locationId: z.string().max(64).optional(),
  blockedReason: z
    .enum(BLOCKED_REASONS)
    .optional()
    .openapi({ description: "only sends the policy refused for this reason (status BLOCKED)" }),
  ...SolicitationTimeFilter.shape,
}).refine(fromBeforeTo, fromBeforeToIssue);

export type SolicitationListFilters = Omit<z.infer<typeof SolicitationListQuery>, "limit" | "cursor">;

export const ContactSolicitationsQuery = PageQuerySchema.extend({
  status: z.enum(SOLICITATION_STATUSES).optional(),
  channel: z.enum(MESSAGE_CHANNELS).optional(),
  ...SolicitationTimeFilter.shape,
}).refine(fromBeforeTo, fromBeforeToIssue);

export const SolicitationPageSchema = paged(SolicitationWithContactSchema).openapi("SolicitationPage");

/** The policy's refusals: recent by default (the last REFUSALS_DEFAULT_DAYS days when `from` is not given). */
export const REFUSALS_DEFAULT_DAYS = 30;

export const RefusalListQuery = PageQuerySchema.extend({
  blockedReason: z.enum(BLOCKED_REASONS).optional().openapi({ description: "only refusals for this reason" }),
  channel: z.enum(MESSAGE_CHANNELS).optional(),
  locationId: z.string().max(64).optional(),
  from: SolicitationTimeFilter.shape.from.openapi({
    description: `createdAt >= from (date-time with offset); default ${REFUSALS_DEFAULT_DAYS} days ago`,
    format: "date-time",
  }),
  to: SolicitationTimeFilter.shape.to,
}).refine(fromBeforeTo, fromBeforeToIssue);

export const RefusalPageSchema = paged(SolicitationWithContactSchema)
  .extend({
    range: z
      .object({ from: DateTime, to: DateTime.nullable() })
      .openapi({ description: "the time range counted (from defaults to 30 days ago; to null: until now)" }),
    byReason: z.record(z.enum(BLOCKED_REASONS), z.number().int()).openapi({
      description: "refusals per reason in the range under the channel and location filters (every reason, 0 included)",
      example: {
        TENANT_PAUSED: 0,
        SUPPRESSED: 2,
        MISSING_ADDRESS: 1,
        NO_CONSENT: 4,
        QUIET_HOURS: 9,
        FREQUENCY_CAP_DAILY: 0,
        FREQUENCY_CAP_WEEKLY: 1,
      },
    }),
  })
  .openapi("ComplianceRefusalPage");

import { z } from "@hono/zod-openapi";
import { CONSENT_CHANNELS, CONSENT_STATUSES, type consentRecords, type contacts, JOB_STATUSES } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { Email, Locale, TimeZone } from "../../lib/validators";

const name = z.string().trim().max(100);
const jsonObject = z.record(z.string(), z.unknown());

export const ContactSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    email: z.string().openapi({ format: "email" }).nullable(),
    phone: z.string().nullable().openapi({ description: "E.164, e.g. +12125550100" }),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    locale: z.string().nullable(),
    timezone: z.string().nullable(),
    isSuppressed: z.boolean(),
    suppressedAt: DateTime.nullable(),
    suppressionReason: z.string().nullable(),
    externalIds: jsonObject,
    sourceMetadata: jsonObject,
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Contact");

export const UpsertContactBody = z
  .object({
    email: Email.nullable().optional(),
    phone: z.string().trim().max(32).nullable().optional().openapi({
      description:
        "Any common format; stored as E.164. Without a leading + it is read in the region of `locale` (default US).",
    }),
    firstName: name.nullable().optional(),
    lastName: name.nullable().optional(),
    locale: Locale.nullable().optional(),
    timezone: TimeZone.nullable().optional(),
    externalIds: jsonObject.optional().openapi({ description: "Merged into the stored object (JSON merge patch)" }),
    sourceMetadata: jsonObject.optional().openapi({ description: "Merged into the stored object (JSON merge patch)" }),
  })
  .refine((b) => Boolean(b.email || b.phone), { message: "email or phone is required", path: ["email"] })
  .openapi("UpsertContactRequest");

/** "true" or "false" in a query string */
const QueryBool = z.enum(["true", "false"]).transform((v) => v === "true");

export const ContactListQuery = PageQuerySchema.extend({
  search: z.string().trim().min(1).max(100).optional().openapi({
    description: "Prefix of the email, the phone (digits from the country code) or the name (first or last name first)",
  }),
  isSuppressed: QueryBool.optional().openapi({
    description: "true: only opted-out contacts; false: only reachable ones",
  }),
  hasEmail: QueryBool.optional().openapi({ description: "true: only contacts with an email address" }),
  hasPhone: QueryBool.optional().openapi({ description: "true: only contacts with a phone number" }),
});

/** The current consent per channel (email, sms, whatsapp, ...): granted, revoked or pending, with when. */
export const ConsentStateSchema = z
  .record(z.string(), z.object({ status: z.string(), at: z.string() }))
  .openapi("ContactConsentState", {
    description: "The latest consent record per channel: its status and when it was recorded",
  });

/** A contact in a list: with its current consent per channel (the MCP tool and the REST list answer alike). */
export const ContactWithConsentSchema = ContactSchema.extend({ consent: ConsentStateSchema }).openapi(
  "ContactWithConsent",
);

export const SuppressBody = z
  .object({ reason: z.string().trim().max(500).optional() })
  .openapi("SuppressContactRequest");

export const ConsentChannelSchema = z.enum(CONSENT_CHANNELS);

export const ConsentRecordSchema = z
  .object({
    id: z.string(),
    contactId: z.string(),
    channel: ConsentChannelSchema,
    status: z.enum(CONSENT_STATUSES),
    source: z.string(),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: DateTime,
  })
  .openapi("ConsentRecord");

export const GrantConsentBody = z
  .object({
    channel: ConsentChannelSchema,
    source: z.string().trim().min(1).max(200).openapi({ description: "How consent was obtained, e.g. checkout_form" }),
    // the JSON Schema formats ipv4/ipv6 (zod-openapi would write the non-standard "ip" for both, a duplicate anyOf branch)
    ipAddress: z
      .union([z.ipv4().openapi({ format: "ipv4" }), z.ipv6().openapi({ format: "ipv6" })])
      .nullable()
      .optional(),
    userAgent: z.string().max(500).nullable().optional(),
  })
  .openapi("GrantConsentRequest");

export const ContactIdParam = z.object({ id: z.string().min(1).max(64) });
export const ConsentChannelParam = ContactIdParam.extend({ channel: ConsentChannelSchema });

export const ImportResultSchema = z
  .object({
    imported: z.number().int(),
    skipped: z.number().int(),
    errors: z.array(
      z.object({
        row: z.number().int().openapi({ description: "1-based data row (the header is row 0)" }),
        reason: z.string(),
      }),
    ),
  })
  .openapi("ContactImportResult");

export const ImportCsvBody = z.object({
  file: z
    .instanceof(File)
    .openapi({ type: "string", format: "binary", description: "CSV, at most 10 MB and 5,000 rows" }),
});

/** An import job's upload: the same file and columns as the synchronous import, at most 1 MB (it waits in the job's row). */
export const MAX_IMPORT_JOB_BYTES = 1_000_000;
export const ImportJobBody = z.object({
  file: z.instanceof(File).openapi({
    type: "string",
    format: "binary",
    description: "CSV, at most 1 MB and 5,000 rows (the columns of POST /v1/contacts/import/csv)",
  }),
});

export const ImportJobIdParam = z.object({
  jobId: z.string().min(1).max(64).openapi({ description: "the id POST /v1/contacts/import-jobs answered" }),
});

export const ContactImportJobSchema = z
  .object({
    id: z.string(),
    status: z.enum(JOB_STATUSES).openapi({
      description: "queued, running, then succeeded (or failed); cancelled when an MCP client cancelled its task",
    }),
    fileName: z.string(),
    rowsTotal: z.number().int().openapi({ description: "data rows in the file" }),
    rowsDone: z.number().int().openapi({ description: "rows handled so far (imported or skipped)" }),
    imported: z.number().int().openapi({ description: "rows applied so far (created or updated)" }),
    skipped: z.number().int().openapi({ description: "rows refused so far (see errors)" }),
    errors: z
      .array(
        z.object({
          row: z.number().int().openapi({ description: "1-based data row (the header is row 0)" }),
          reason: z.string(),
        }),
      )
      .openapi({ description: "the refused rows so far, in row order" }),
    error: z.string().nullable().openapi({ description: "why a failed job stopped" }),
    createdAt: DateTime,
    startedAt: DateTime.nullable(),
    finishedAt: DateTime.nullable(),
  })
  .openapi("ContactImportJob");

export const ContactExportSchema = z
  .object({
    exportedAt: DateTime,
    contact: ContactSchema,
    records: z
      .record(z.string(), z.array(jsonObject))
      .openapi({ description: "Everything else held about the contact, by kind (consentRecords, ...)" }),
  })
  .openapi("ContactExport");

export type UpsertContactInput = z.infer<typeof UpsertContactBody>;
export type GrantConsentInput = z.infer<typeof GrantConsentBody>;
export type ContactRow = typeof contacts.$inferSelect;
export type ConsentRow = typeof consentRecords.$inferSelect;

export const toContact = (c: ContactRow) => ({
  id: c.id,
  tenantId: c.tenantId,
  email: c.email,
  phone: c.phone,
  firstName: c.firstName,
  lastName: c.lastName,
  locale: c.locale,
  timezone: c.timezone,
  isSuppressed: c.isSuppressed,
  suppressedAt: c.suppressedAt,
  suppressionReason: c.suppressionReason,
  externalIds: c.externalIds,
  sourceMetadata: c.sourceMetadata,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export const toConsentRecord = (r: ConsentRow) => ({
  id: r.id,
  contactId: r.contactId,
  channel: r.channel,
  status: r.status,
  source: r.source,
  ipAddress: r.ipAddress,
  userAgent: r.userAgent,
  createdAt: r.createdAt,
});

/**
 * What a contact's audit rows carry: state and which fields are set, never the personal values,
 * so erasure does not have to rewrite the append-only audit log.
 */
export const auditView = (c: ContactRow) => ({
  hasEmail: c.email !== null,
  hasPhone: c.phone !== null,
  hasName: c.firstName !== null || c.lastName !== null,
  locale: c.locale,
  timezone: c.timezone,
  isSuppressed: c.isSuppressed,
  suppressedAt: c.suppressedAt,
  anonymizedAt: c.anonymizedAt,
});

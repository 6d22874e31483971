import { z } from "@hono/zod-openapi";
import { MAX_CSV_BYTES } from "../../lib/csv";
import { errors, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation, reply } from "../../lib/operation";
import { currentConsent, grantConsent, listConsent, revokeConsent } from "./consent";
import { importContactsCsv } from "./import";
import { getContactsImport, requestContactsImport, startContactsImport } from "./import-job";
import { eraseContact, exportContact } from "./privacy";
import {
  ConsentChannelParam,
  ConsentRecordSchema,
  ContactExportSchema,
  ContactIdParam,
  ContactImportJobSchema,
  ContactListQuery,
  ContactSchema,
  ContactWithConsentSchema,
  GrantConsentBody,
  ImportCsvBody,
  ImportJobBody,
  ImportJobIdParam,
  ImportResultSchema,
  MAX_IMPORT_JOB_BYTES,
  SuppressBody,
  UpsertContactBody,
} from "./schemas";
import { getContact, listContacts, suppressContact, unsuppressContact, upsertContact } from "./service";

// The contacts operations served by REST, MCP and agents alike (src/lib/operation.ts).

const tags = ["Contacts"];

export const listContactsOperation = defineOperation({
  name: "contact.list",
  operationId: "listContacts",
  method: "get",
  path: "/v1/contacts",
  tags,
  summary: "List contacts, newest first; search by email, phone or name prefix",
  description:
    "The business's customer contacts, newest first, with suppression state and current consent per channel. " +
    "Use isSuppressed, hasEmail and hasPhone to find who can be asked for a review on a channel.",
  request: { query: ContactListQuery },
  output: paged(ContactWithConsentSchema).openapi("ContactPage"),
  errors: stdErrors,
  scopes: ["read:contacts"],
  access: "read",
  mcp: {
    title: "List customers (contacts)",
    limit: { default: 25, max: 200 },
    describe: { search: "prefix of email, phone or name" },
  },
  console: {},
  handler: async (ctx, input) => {
    const page = await listContacts(ctx, input);
    const consent = await currentConsent(
      ctx,
      page.data.map((c) => c.id),
    );
    return { ...page, data: page.data.map((c) => ({ ...c, consent: consent.get(c.id) ?? {} })) };
  },
});

export const createContactOperation = defineOperation({
  name: "contact.upsert",
  operationId: "createContact",
  method: "post",
  path: "/v1/contacts",
  tags,
  summary: "Create or update a contact, matched on email, else phone (tenant_user)",
  request: { body: UpsertContactBody },
  status: 201,
  statusText: "Created or updated",
  output: ContactSchema,
  errors: { ...stdErrors, 409: errors[409] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, input) => upsertContact(ctx, input),
});

export const getContactOperation = defineOperation({
  name: "contact.get",
  operationId: "getContact",
  method: "get",
  path: "/v1/contacts/{id}",
  tags,
  summary: "Get a contact",
  request: { params: ContactIdParam },
  output: ContactSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:contacts"],
  access: "read",
  console: {},
  handler: async (ctx, input) => getContact(ctx, input.id),
});

export const unsuppressContactOperation = defineOperation({
  name: "contact.unsuppress",
  operationId: "unsuppressContact",
  method: "delete",
  path: "/v1/contacts/{id}/suppress",
  tags,
  summary: "Lift a suppression (tenant_user)",
  request: { params: ContactIdParam },
  output: ContactSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  console: {},
  handler: async (ctx, input) => unsuppressContact(ctx, input.id),
});

export const exportContactOperation = defineOperation({
  name: "contact.export",
  operationId: "exportContact",
  method: "get",
  path: "/v1/contacts/{id}/export",
  tags,
  summary: "Data-subject export (GDPR art. 15/20) when allowDataExport is on (manager)",
  request: { params: ContactIdParam },
  output: ContactExportSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:contacts"],
  minRole: "manager",
  access: "read",
  handler: async (ctx, input) => exportContact(ctx, input.id),
});

export const eraseContactOperation = defineOperation({
  name: "contact.erase",
  operationId: "eraseContact",
  method: "delete",
  path: "/v1/contacts/{id}",
  tags,
  summary: "Erase a contact's personal data (GDPR art. 17) when allowDataDeletion is on (tenant_admin)",
  description:
    "Personal fields are wiped and the contact stays as an anonymous, permanently suppressed row, so counts stay.",
  request: { params: ContactIdParam },
  output: ContactSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: ["write:contacts"],
  minRole: "tenant_admin",
  access: "write",
  destructive: true,
  idempotent: true,
  console: {},
  handler: async (ctx, input) => eraseContact(ctx, input.id),
});

export const listContactConsentOperation = defineOperation({
  name: "contact.consent-history",
  operationId: "listContactConsent",
  method: "get",
  path: "/v1/contacts/{id}/consent",
  tags,
  summary: "Consent history, oldest first; the latest per channel is current",
  request: { params: ContactIdParam },
  output: z.array(ConsentRecordSchema),
  errors: stdErrorsWithNotFound,
  scopes: ["read:contacts"],
  access: "read",
  console: {},
  handler: async (ctx, input) => listConsent(ctx, input.id),
});

export const grantContactConsentOperation = defineOperation({
  name: "contact.grant-consent",
  operationId: "grantContactConsent",
  method: "post",
  path: "/v1/contacts/{id}/consent",
  tags,
  summary: "Record a consent grant (tenant_user)",
  request: { params: ContactIdParam, body: GrantConsentBody },
  status: 201,
  statusText: "Recorded",
  output: ConsentRecordSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, { id, ...grant }) => grantConsent(ctx, id, grant),
});

export const revokeContactConsentOperation = defineOperation({
  name: "contact.revoke-consent",
  operationId: "revokeContactConsent",
  method: "delete",
  path: "/v1/contacts/{id}/consent/{channel}",
  tags,
  summary: "Record a consent revocation (tenant_user)",
  request: { params: ConsentChannelParam },
  output: ConsentRecordSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, input) => revokeConsent(ctx, input.id, input.channel),
});

export const suppressContactOperation = defineOperation({
  name: "contact.suppress",
  operationId: "suppressContact",
  method: "post",
  path: "/v1/contacts/{id}/suppress",
  tags,
  summary: "Suppress a contact on every channel (tenant_user)",
  description:
    "Suppresses a contact: no review request will be sent to them again on any channel until a person " +
    "unsuppresses them. The reason is kept in the audit log.",
  request: { params: ContactIdParam, body: SuppressBody, bodyRequired: false },
  output: ContactSchema,
  errors: { ...stdErrorsWithNotFound, 409: errors[409] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  destructive: false,
  confirm: (input) => `Stop every message to contact ${input.id}? Reason: ${input.reason ?? "(none given)"}`,
  mcp: {
    title: "Opt a customer out of all messages",
    description:
      "Suppresses a contact: no review request on any channel until a person unsuppresses them in the app. Use it " +
      "when a customer asks not to be contacted; the reason goes into the audit log.",
    rename: { id: "contactId" },
    // a model acting for a person says why; REST keeps the reason optional (the spec's body)
    required: ["reason"],
    describe: { id: "from contact.list", reason: "e.g. 'asked by phone not to be contacted'" },
  },
  console: {},
  handler: async (ctx, input) => suppressContact(ctx, input.id, input.reason),
});

export const startContactImportJobOperation = defineOperation({
  name: "contact.start-import-job",
  operationId: "startContactImportJob",
  method: "post",
  path: "/v1/contacts/import-jobs",
  tags,
  summary: "Start a CSV contact import as a background job (tenant_user); 202 with the job to poll",
  description:
    "The same file, columns and per-row rules as POST /v1/contacts/import/csv, imported 100 rows at a time in the " +
    "background: each step's rows are written together with the job's progress. Answers 202 with the job and its " +
    "URL in Location (GET /v1/contacts/import-jobs/{jobId}). At most 1 MB and 5,000 rows (413), refused before " +
    "anything is stored, like a file without an email or phone column (400).",
  request: {
    form: ImportJobBody,
    // an import job's file waits in the job's row: 1 MB, plus the multipart overhead
    bodyLimit: {
      bytes: MAX_IMPORT_JOB_BYTES + 64 * 1024,
      message: "An import job takes at most 1 MB; nothing was imported",
      details: { reason: "file_too_large" },
    },
  },
  status: 202,
  statusText: "Accepted: the job is queued",
  responseHeaders: z.object({
    Location: z.string().openapi({ description: "the job's URL", example: "/v1/contacts/import-jobs/job_x" }),
  }),
  output: ContactImportJobSchema,
  errors: { ...stdErrors, 413: errors[413] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  console: {},
  handler: async (ctx, input) => {
    const job = await startContactsImport(ctx, input.file);
    return reply(job, { headers: { Location: `/v1/contacts/import-jobs/${job.id}` } });
  },
});

export const getContactImportJobOperation = defineOperation({
  name: "contact.import-job",
  operationId: "getContactImportJob",
  method: "get",
  path: "/v1/contacts/import-jobs/{jobId}",
  tags,
  summary: "Progress of a CSV contact import job: state, rows done of total, per-row errors",
  description:
    "The job POST /v1/contacts/import-jobs started (or an MCP client's contact.import-csv task): status, rowsDone of " +
    "rowsTotal, imported and skipped so far, and the refused rows with their reasons. Poll until status is succeeded " +
    "or failed. Another tenant's job is 404.",
  request: { params: ImportJobIdParam },
  output: ContactImportJobSchema,
  errors: stdErrorsWithNotFound,
  scopes: ["read:contacts"],
  access: "read",
  console: {},
  handler: (ctx, input) => getContactsImport(ctx, input.jobId),
});

export const importContactsCsvOperation = defineOperation({
  name: "contact.import-csv-file",
  operationId: "importContactsCsv",
  method: "post",
  path: "/v1/contacts/import/csv",
  tags,
  summary: "Upsert contacts from a CSV file (tenant_user); all valid rows are written atomically",
  request: {
    form: ImportCsvBody,
    // multipart overhead allowance on top of the file's own 10 MB
    bodyLimit: { bytes: MAX_CSV_BYTES + 64 * 1024, message: "CSV import is limited to 10 MB; nothing was imported" },
  },
  output: ImportResultSchema,
  errors: { ...stdErrors, 409: errors[409], 413: errors[413] },
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  handler: async (ctx, input) => importContactsCsv(ctx, input.file),
});

/** 1 MB of CSV text: the job keeps it in its row until it is done (D1 rows hold up to 2 MB). */
const MAX_CSV_CHARS = 1_000_000;
const rowsOf = (csv: string) => Math.max(0, csv.trim().split(/\r?\n/).length - 1);

/**
 * The CSV import for an assistant: MCP has no file upload, so the CSV travels as text; a long job to a
 * client with the tasks extension (mcp/tasks.ts), the REST route's answer to any other.
 */
export const importContactsCsvTextOperation = defineOperation({
  name: "contact.import-csv",
  summary: "Import contacts from CSV",
  description:
    "Upserts contacts from CSV text (columns email, phone, first_name, last_name, locale, timezone; email or phone " +
    "required), matched by email or phone.",
  input: z.object({
    csv: z.string().min(1).max(MAX_CSV_CHARS).describe("with a header row; at most 5,000 rows"),
    fileName: z.string().max(200).optional().describe("shown in the audit log"),
  }),
  output: ImportResultSchema,
  scopes: ["write:contacts"],
  minRole: "tenant_user",
  access: "write",
  idempotent: true,
  variantOf: { operationId: "importContactsCsv", why: "the CSV as text (MCP has no file upload), as a long job" },
  confirm: (input) => `Import about ${rowsOf(input.csv)} contacts from CSV (existing contacts are updated)?`,
  mcp: {
    title: "Import contacts from CSV",
    longJob: {
      kind: "contacts_import",
      unit: "rows",
      start: (ctx, input, owner) => requestContactsImport(ctx, input, owner),
    },
  },
  handler: (ctx, input) =>
    importContactsCsv(ctx, new File([input.csv], input.fileName ?? "contacts.csv", { type: "text/csv" })),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  listContactsOperation,
  createContactOperation,
  getContactOperation,
  eraseContactOperation,
  exportContactOperation,
  unsuppressContactOperation,
  listContactConsentOperation,
  grantContactConsentOperation,
  revokeContactConsentOperation,
  suppressContactOperation,
  startContactImportJobOperation,
  importContactsCsvOperation,
  importContactsCsvTextOperation,
  getContactImportJobOperation,
];

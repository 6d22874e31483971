import { z } from "@hono/zod-openapi";
import { MAX_CSV_BYTES } from "../../lib/csv";
import { errors, paged, stdErrors, stdErrorsWithNotFound } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { currentConsent } from "./consent";
import { importContactsCsv } from "./import";
import { getContactsImport, requestContactsImport } from "./import-job";
import {
  ContactIdParam,
  ContactImportJobSchema,
  ContactListQuery,
  ContactSchema,
  ContactWithConsentSchema,
  ImportCsvBody,
  ImportJobIdParam,
  ImportResultSchema,
  SuppressBody,
} from "./schemas";
import { listContacts, suppressContact } from "./service";

// The contacts operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const listContactsOperation = defineOperation({
  name: "contact.list",
  operationId: "listContacts",
  method: "get",
  path: "/v1/contacts",
  tags: ["Contacts"],
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
  handler: async (ctx, input) => {
    const page = await listContacts(ctx, input);
    const consent = await currentConsent(
      ctx,
      page.data.map((c) => c.id),
    );
    return { ...page, data: page.data.map((c) => ({ ...c, consent: consent.get(c.id) ?? {} })) };
  },
});

export const suppressContactOperation = defineOperation({
  name: "contact.suppress",
  operationId: "suppressContact",
  method: "post",
  path: "/v1/contacts/{id}/suppress",
  tags: ["Contacts"],
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
  handler: async (ctx, input) => suppressContact(ctx, input.id, input.reason),
});

export const getContactImportJobOperation = defineOperation({
  name: "contact.import-job",
  operationId: "getContactImportJob",
  method: "get",
  path: "/v1/contacts/import-jobs/{jobId}",
  tags: ["Contacts"],
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
  handler: (ctx, input) => getContactsImport(ctx, input.jobId),
});

export const importContactsCsvOperation = defineOperation({
  name: "contact.import-csv-file",
  operationId: "importContactsCsv",
  method: "post",
  path: "/v1/contacts/import/csv",
  tags: ["Contacts"],
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
  suppressContactOperation,
  importContactsCsvOperation,
  importContactsCsvTextOperation,
  getContactImportJobOperation,
];

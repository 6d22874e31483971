/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { type Child, createElement } from "hono/jsx";
import { callOperation } from "../../../lib/operation-route";
import { csvRow } from "../../audit/csv";
import { getContactImportJobOperation, startContactImportJobOperation } from "../../contacts/operations";
import { type ContactImportJobSchema, MAX_IMPORT_JOB_BYTES } from "../../contacts/schemas";
import { tenantHref, tenantOf, When } from "../atoms";
import { type ImportState, importFinished, SHOWN_ERRORS } from "../client/import-state";
import { type Create, importView } from "../client/import-view";
import { withLabels } from "../form-values";
import { act, type CC, can, csrfOf, page, redirectTo } from "../kit";
import { Csrf, ROLE_LABEL } from "../layout";

/*
 * Contacts from a CSV file (docs/console.md "Contacts", issue #46 item 2): the page uploads the file as a
 * multipart form to POST /v1/contacts/import-jobs's operation (startContactImportJob: REST's tenant_user check
 * first, its form schema), then shows the job's own page, /contacts/import/{jobId}: GET
 * /v1/contacts/import-jobs/{jobId} (getContactImportJob) with a <progress> of rows done that a small client
 * part (client/import-progress.tsx) updates without reloading, and the refused rows with their row numbers and
 * reasons. The job runs in the background, so the page survives a reload and can be left and come back to;
 * without script a Refresh link shows how far it is.
 */

type Job = z.infer<typeof ContactImportJobSchema>;

const importHref = (c: CC, jobId = "", rest = "") =>
  tenantHref(c, `/contacts/import${jobId ? `/${encodeURIComponent(jobId)}` : ""}${rest}`);

const tooLarge = "The file is larger than 1 MB, so nothing was imported. Split it into smaller files and import each.";

/**
 * REST's limit on an import's upload (1 MB and the multipart's overhead), checked before the body is read:
 * the console's pipeline reads a form before its handler (the CSRF token), so this runs ahead of it.
 */
export const importBodyLimit = bodyLimit({
  maxSize: MAX_IMPORT_JOB_BYTES + 64 * 1024,
  onError: (c) => redirectTo(c as CC, c.req.path, { kind: "error", text: tooLarge }),
});

/** The job as its page and its client part show it. */
const stateOf = (c: CC, job: Job): ImportState => ({
  status: job.status,
  total: job.rowsTotal,
  done: job.rowsDone,
  imported: job.imported,
  skipped: job.skipped,
  error: job.error,
  errors: job.errors.slice(0, SHOWN_ERRORS),
  errorsCsv: importHref(c, job.id, "/errors"),
});

const COLUMNS: [column: string, what: string][] = [
  ["email", "an email address"],
  ["phone", "a phone number, in any common format (+1 212 555 0100); without a country code, a US number"],
  ["first_name", "the first name"],
  ["last_name", "the last name"],
  ["locale", "their language, such as en-US or fr-CA"],
  ["timezone", "their time zone, such as America/New_York (quiet hours follow it)"],
];

export async function importPage(c: CC): Promise<Response> {
  const [tenant, csrf] = await Promise.all([tenantOf(c), csrfOf(c)]);
  const writer = can(c, "tenant_user");
  return page(
    c,
    { title: "Import contacts", section: "contacts", tenant },
    <>
      <p class="small">
        <a href={tenantHref(c, "/contacts")}>All contacts</a>
      </p>
      <h1>Import contacts</h1>
      <section class="card" aria-labelledby="file">
        <h2 id="file">The file</h2>
        <p>
          A CSV file (spreadsheets save one with “Save as CSV”) with a header row naming its columns; each row needs an
          email or a phone number. The columns read are:
        </p>
        <dl class="facts">
          {COLUMNS.map(([column, what]) => (
            <>
              <dt>
                <code>{column}</code>
              </dt>
              <dd>{what}</dd>
            </>
          ))}
        </dl>
        <p class="muted small">
          Other columns are ignored. A row whose email (else phone) is already a contact's updates that contact; empty
          cells keep what is stored. At most 1 MB and 5,000 rows a file. Importing records no consent: where your{" "}
          <a href={tenantHref(c, "/compliance")}>compliance rules</a> require it, record each contact's consent before
          asking them for a review.
        </p>
      </section>
      {writer ? (
        <section class="card" aria-labelledby="upload">
          <h2 id="upload">Upload</h2>
          <form method="post" action={importHref(c)} enctype="multipart/form-data">
            <Csrf token={csrf} />
            <label for="import-file">CSV file</label>
            <input id="import-file" name="file" type="file" accept=".csv,text/csv" required />
            <p class="muted small">The rows are imported in the background; the next page shows how far it is.</p>
            <div class="actions">
              <button type="submit">Import</button>
            </div>
          </form>
        </section>
      ) : (
        <p class="muted">
          Your role here ({ROLE_LABEL[c.var.access.role]}) reads contacts; a team member or a manager imports them.
        </p>
      )}
    </>,
  );
}

/** REST: POST /v1/contacts/import-jobs (startContactImportJob, tenant_user); then the job's own page. */
export async function importSubmit(c: CC): Promise<Response> {
  const back = importHref(c);
  return act(
    c,
    back,
    () =>
      withLabels(
        { file: "CSV file" },
        async () => {
          const body = await c.req.parseBody();
          const job = await callOperation<Job>(c, startContactImportJobOperation, { form: { file: body.file } });
          return redirectTo(c, importHref(c, job.id), {
            kind: "notice",
            text: `The import of ${job.fileName} has started. This page shows its progress; you may leave and come back.`,
          });
        },
        // a form without a file: zod says only "Invalid input"
        { "Invalid input": "choose a file" },
      ),
    { file_too_large: tooLarge },
  );
}

const getJob = (c: CC) =>
  callOperation<Job>(c, getContactImportJobOperation, { params: { jobId: c.req.param("jobId") ?? "" } });

/** One import: its progress (updated by the client part while it runs), then what was imported and refused. */
export async function importJobPage(c: CC): Promise<Response> {
  const [tenant, job] = await Promise.all([tenantOf(c), getJob(c)]);
  const state = stateOf(c, job);
  return page(
    c,
    { title: `Import of ${job.fileName}`, section: "contacts", tenant },
    <>
      <p class="small">
        <a href={tenantHref(c, "/contacts")}>All contacts</a> · <a href={importHref(c)}>Import another file</a>
      </p>
      <h1>Import of {job.fileName}</h1>
      <dl class="facts">
        <dt>Started</dt>
        <dd>
          <When iso={job.createdAt} />
        </dd>
        {job.finishedAt && (
          <>
            <dt>Finished</dt>
            <dd>
              <When iso={job.finishedAt} />
            </dd>
          </>
        )}
        <dt>Rows in the file</dt>
        <dd>{job.rowsTotal.toLocaleString("en-US")}</dd>
      </dl>
      <div id="import-live" data-poll={importHref(c, job.id, "/status")} data-state={JSON.stringify(state)}>
        {importView(createElement as Create<Child>, state)}
      </div>
      {!importFinished(state.status) && (
        <noscript>
          <p>
            <a href={importHref(c, job.id)}>Refresh</a> to see how far it is.
          </p>
        </noscript>
      )}
    </>,
  );
}

/** What the client part polls: the job's state (GET /v1/contacts/import-jobs/{jobId}), in short. */
export async function importStatus(c: CC): Promise<Response> {
  return c.json(stateOf(c, await getJob(c)), 200, { "cache-control": "no-store" });
}

/** Every refused row of an import as CSV (row, reason): the rows to fix and import again. */
export async function importErrorsCsv(c: CC): Promise<Response> {
  const job = await getJob(c);
  const body = csvRow(["row", "reason"]) + job.errors.map((e) => csvRow([e.row, e.reason])).join("");
  return c.body(body, 200, {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": 'attachment; filename="refused-rows.csv"',
    "cache-control": "no-store",
  });
}

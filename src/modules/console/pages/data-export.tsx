/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { FileAnswer } from "../../../lib/operation";
import { callOperation, respond } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import {
  createExportOperation,
  downloadExportOperation,
  getExportOperation,
  listExportsOperation,
} from "../../exports/operations";
import type { TenantExportSchema } from "../../exports/schemas";
import { Pager, tenantHref, tenantOf, When } from "../atoms";
import { type ExportState, finished, stateText } from "../client/export-state";
import { act, type CC, csrfOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";

/*
 * Data export (docs/console.md, issue #46 item 9): a tenant admin starts the export of all of the tenant's data
 * (POST /v1/exports: a background job), follows its progress on the export's own page (GET /v1/exports/{id}),
 * which a small client part (client/export-progress.tsx) updates without reloading and which a reload or a
 * later visit finds where it is, then downloads the file (GET /v1/exports/{id}/download, streamed). The list
 * is GET /v1/exports. Each is the REST twin's operation (callOperation: its tenant_admin check, its schemas).
 */

type Export = z.infer<typeof TenantExportSchema>;

const exportHref = (c: CC, id = "", rest = "") =>
  tenantHref(c, `/data-export${id ? `/${encodeURIComponent(id)}` : ""}${rest}`);

const REFUSALS = {
  export_disabled:
    "Data export is switched off in this business's compliance settings (allowDataExport); an admin turns it on there.",
};

/** The export as the page and its client part show it: the console's own download address. */
const stateOf = (c: CC, e: Export): ExportState => ({
  status: e.status,
  done: e.progress.done,
  total: e.progress.total,
  error: e.error,
  download: e.downloadUrl ? exportHref(c, e.id, "/download") : null,
});

const STATUS_TONE: Record<Export["status"], string> = {
  queued: "status warn",
  running: "status warn",
  succeeded: "status ok",
  failed: "status bad",
  cancelled: "status",
};

export async function dataExportPage(c: CC): Promise<Response> {
  const cursor = c.req.query("cursor") || undefined;
  const [tenant, list, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Export>>(c, listExportsOperation, { query: { cursor, limit: "20" } }),
    csrfOf(c),
  ]);
  const base = exportHref(c);
  return page(
    c,
    { title: "Data export", section: "data-export", tenant },
    <>
      <h1>Data export</h1>
      <p>
        One file with all of this business's data: locations, contacts with their consent and suppression, campaigns,
        templates, requests, reviews and replies, surveys and feedback, the inbox, integrations and webhooks (without
        their secrets) and the audit trail. It is JSON Lines: one <code>{"{table, row}"}</code> per line.
      </p>
      <section class="card" aria-labelledby="start">
        <h2 id="start">Start an export</h2>
        <p class="muted small">
          It is made in the background; its page shows the progress, and the file stays downloadable for 7 days.
        </p>
        <form method="post" action={base}>
          <Csrf token={csrf} />
          <div class="actions">
            <button type="submit">Start the export</button>
          </div>
        </form>
      </section>
      {list.data.length === 0 ? (
        <p class="card">No export yet. Start one above.</p>
      ) : (
        <table class="rows">
          <caption>Exports ({list.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">State</th>
              <th scope="col">Rows</th>
              <th scope="col">File</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((e) => (
              <tr>
                <th scope="row" data-label="Started">
                  <a href={exportHref(c, e.id)}>
                    <When iso={e.createdAt} />
                  </a>
                </th>
                <td data-label="State">
                  <span class={STATUS_TONE[e.status]}>{e.status}</span>
                </td>
                <td data-label="Rows">
                  {e.progress.done.toLocaleString("en-US")} of {e.progress.total.toLocaleString("en-US")}
                </td>
                <td data-label="File">
                  {e.downloadUrl ? (
                    <a href={exportHref(c, e.id, "/download")}>Download</a>
                  ) : e.status === "succeeded" ? (
                    <span class="muted">expired</span>
                  ) : (
                    <span class="muted">not ready</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={base}
        params={{}}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!cursor}
      />
    </>,
  );
}

const getExport = (c: CC) =>
  callOperation<Export>(c, getExportOperation, { params: { id: c.req.param("exportId") ?? "" } });

/** One export: its progress (updated by the client part while it runs), then its file. */
export async function exportPage(c: CC): Promise<Response> {
  const [tenant, e] = await Promise.all([tenantOf(c), getExport(c)]);
  const state = stateOf(c, e);
  const done = finished(state.status);
  return page(
    c,
    { title: "Data export", section: "data-export", tenant },
    <>
      <p>
        <a href={exportHref(c)}>All exports</a>
      </p>
      <h1>Data export</h1>
      <dl class="facts">
        <dt>Started</dt>
        <dd>
          <When iso={e.createdAt} />
        </dd>
        {e.finishedAt && (
          <>
            <dt>Finished</dt>
            <dd>
              <When iso={e.finishedAt} />
            </dd>
          </>
        )}
        {e.expiresAt && (
          <>
            <dt>Downloadable until</dt>
            <dd>
              <When iso={e.expiresAt} />
            </dd>
          </>
        )}
      </dl>
      <div id="export-live" data-poll={exportHref(c, e.id, "/status")} data-state={JSON.stringify(state)}>
        <p role="status">{stateText(state)}</p>
        {!done && <progress max={Math.max(state.total, 1)} value={state.done} aria-label="Rows written" />}
        {state.download && (
          <p>
            <a class="button" href={state.download}>
              Download the file
            </a>
          </p>
        )}
      </div>
      {!done && (
        <noscript>
          <p>
            <a href={exportHref(c, e.id)}>Refresh</a> to see how far it is.
          </p>
        </noscript>
      )}
      {Object.keys(e.tables).length > 0 && (
        <table class="rows">
          <caption>Rows per table</caption>
          <thead>
            <tr>
              <th scope="col">Table</th>
              <th scope="col">Rows</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(e.tables).map(([table, rows]) => (
              <tr>
                <th scope="row" data-label="Table">
                  {table}
                </th>
                <td data-label="Rows">{rows.toLocaleString("en-US")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
  );
}

/** What the client part polls: the export's state (GET /v1/exports/{id}), with the console's download address. */
export async function exportStatus(c: CC): Promise<Response> {
  return c.json(stateOf(c, await getExport(c)), 200, { "cache-control": "no-store" });
}

/** GET /v1/exports/{id}/download's file, streamed as REST streams it (404 before it is done and once expired). */
export async function exportDownload(c: CC): Promise<Response> {
  const file = await callOperation<FileAnswer>(c, downloadExportOperation, {
    params: { id: c.req.param("exportId") ?? "" },
  });
  return respond(c, downloadExportOperation, file);
}

/** REST: POST /v1/exports; then the export's own page, where its progress shows. */
export async function startExportSubmit(c: CC): Promise<Response> {
  return act(
    c,
    exportHref(c),
    async () => {
      const started = await callOperation<Export>(c, createExportOperation, { body: {} });
      return redirectTo(c, exportHref(c, started.id), {
        kind: "notice",
        text: "The export has started. This page shows its progress; you may leave and come back.",
      });
    },
    REFUSALS,
  );
}

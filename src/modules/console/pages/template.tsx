/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { MessageChannel } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { renderHtml } from "../../../lib/html";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { svc } from "../../../middleware/service-context";
import { canWrite } from "../../../middleware/tenant";
import { listLocationsOperation } from "../../locations/operations";
import type { LocationSchema } from "../../locations/schemas";
import {
  approveTemplateOperation,
  archiveTemplateOperation,
  createTemplateVersionOperation,
  listTemplatesOperation,
  previewTemplateContentOperation,
  previewTemplateOperation,
  updateTemplateOperation,
} from "../../templates/operations";
import { SMS_OPT_OUT_TEXT } from "../../templates/render";
import type { PreviewSchema, TemplateDto } from "../../templates/schemas";
import { MAX_SMS_CHARACTERS } from "../../templates/service";
import { BUILTIN_TOKENS } from "../../templates/tokens";
import { customTokenKeys } from "../../templates/variables.service";
import { tenantOf, When } from "../atoms";
import { act, asRest, type CC, can, csrfOf, page, redirectTo, sentenceOf } from "../kit";
import { Csrf, type Flash } from "../layout";
import { CHANNEL_LABEL, n, RequestsNav } from "./requests";
import {
  BODY_LABEL,
  contentFields,
  TEMPLATE_STATUS_LABEL,
  TEMPLATE_STATUS_TONE,
  templateHref,
  templateOf,
  whatsAppStatesOf,
} from "./templates";

/*
 * One template (docs/console.md, "Review requests"): its editor, the variables the template engine knows, a
 * preview that follows the typing, the channel's rules, its versions and the moves of its life.
 * - The preview of the saved template is GET /v1/templates/{id}/preview's service; of the fields being typed,
 *   POST /v1/templates/preview (previewTemplateContent): the same sample values, and the unknown-token refusal
 *   saving would meet, as a sentence. Without script the "Preview" button posts the form and the answer is this
 *   page with the fields as typed; with it, client/template-preview.tsx asks for the same panel as you type.
 * - Save is PATCH /v1/templates/{id} (canWrite): a draft changes in place, an approved template gets a new draft
 *   version (the approved one stays in use until that is approved). "Start a new version" is POST .../version.
 *   Approve (POST .../approve) and Archive (POST .../archive) are a manager's (canManage).
 * - Versions are GET /v1/templates?rootId= (one lineage, newest first).
 */

type Preview = z.infer<typeof PreviewSchema>;
type Location = z.infer<typeof LocationSchema>;
type Builtin = (typeof BUILTIN_TOKENS)[number];

/** What each placeholder becomes in a message (the template engine's built-in tokens). */
const TOKEN_HELP: Record<Builtin, string> = {
  firstName: "the customer's first name",
  lastName: "the customer's last name",
  fullName: "first and last name",
  locationName: "the location's name",
  brandName: "the location's brand (its business name)",
  reviewLink: "the link to leave a review; its clicks and the reviews that follow are counted",
  feedbackLink: "the link to your own feedback page",
  unsubscribeLink: "the link to stop receiving messages (emails get one added when it is missing)",
};

/** A preview, or the service's refusal of the content as a sentence. */
export type PreviewResult = { preview: Preview } | { error: string };

/** The rendered message as a customer would receive it (sample values), with what the channel adds and counts. */
export function PreviewPanel(props: { channel: MessageChannel; result: PreviewResult }) {
  const { channel, result } = props;
  if ("error" in result)
    return (
      <p class="error" role="alert">
        {result.error}
      </p>
    );
  const p = result.preview;
  const chars = p.text === null ? 0 : [...p.text].length;
  return (
    <div>
      {channel === "email" && (
        <p>
          <strong>Subject:</strong> {p.subject ?? <span class="muted">none (an email needs one to be approved)</span>}
        </p>
      )}
      {p.text !== null ? (
        <pre class="copy">{p.text}</pre>
      ) : (
        <p class="muted">{channel === "email" ? "No text version." : "No message yet."}</p>
      )}
      {p.unsubscribeLinkAppended && (
        <p class="muted small">An unsubscribe link is added because the template has no {"{{unsubscribeLink}}"}.</p>
      )}
      {p.sms && (
        <p class="small">
          {n(chars)} characters with the opt-out line (at most {n(MAX_SMS_CHARACTERS)} to be approved) ·{" "}
          {p.sms.encoding === "GSM-7" ? "GSM-7" : "UCS-2 (a character outside GSM-7, such as an emoji)"} ·{" "}
          <strong>
            {p.sms.segments} segment{p.sms.segments === 1 ? "" : "s"}
          </strong>{" "}
          per customer, each billed
        </p>
      )}
      {p.html !== null && (
        <details>
          <summary>The HTML version as sent</summary>
          <pre class="copy">{p.html}</pre>
        </details>
      )}
    </div>
  );
}

/** The channel's rules, as the service applies them (approval lint, render, the send's guards). */
function ChannelRules(props: { channel: MessageChannel; meta: { name: string; category: string | null }[] }) {
  switch (props.channel) {
    case "email":
      return (
        <ul class="small">
          <li>To be approved an email needs a subject, and an HTML or a text version.</li>
          <li>Every email carries an unsubscribe link and one-click unsubscribe headers.</li>
        </ul>
      );
    case "sms":
      return (
        <ul class="small">
          <li>“{SMS_OPT_OUT_TEXT}” is added on a new line unless the message already says “Reply STOP”.</li>
          <li>
            160 plain (GSM-7) characters fit one segment, 153 per segment beyond; one emoji or curly quote makes it
            UCS-2: 70, then 67 per segment. Carriers bill every segment.
          </li>
          <li>At most {n(MAX_SMS_CHARACTERS)} characters with the opt-out line: providers refuse longer messages.</li>
        </ul>
      );
    case "whatsapp":
      return (
        <>
          <ul class="small">
            <li>
              This text is sent only within 24 hours of the customer's last message. Otherwise WhatsApp sends the
              campaign's template approved by Meta (named on the campaign).
            </li>
            <li>
              Meta does not deliver MARKETING templates to US (+1) numbers, and stops templates it paused or disabled:
              such a send fails at once with that reason.
            </li>
          </ul>
          {props.meta.length > 0 && (
            <p class="small">
              Your WhatsApp templates at Meta:{" "}
              {props.meta.map((m, i) => (
                <>
                  {i > 0 && "; "}
                  <code>{m.name}</code> ({m.category ?? "category not reported yet"})
                </>
              ))}
              .
            </p>
          )}
        </>
      );
  }
}

function Variables({ custom }: { custom: string[] }) {
  return (
    <details>
      <summary>Variables you can use</summary>
      <dl class="facts">
        {BUILTIN_TOKENS.map((t) => (
          <>
            <dt>
              <code>{`{{${t}}}`}</code>
            </dt>
            <dd>{TOKEN_HELP[t]}</dd>
          </>
        ))}
        {custom.map((t) => (
          <>
            <dt>
              <code>{`{{${t}}}`}</code>
            </dt>
            <dd>a location variable (each location's own value; empty where a location has none)</dd>
          </>
        ))}
      </dl>
      <p class="muted small">Anything else between double braces is refused when saving.</p>
    </details>
  );
}

interface Typed {
  name: string;
  content: { subject: string | null; bodyText: string | null; bodyHtml: string | null };
  locationId: string;
  result: PreviewResult;
}

function Editor(props: { t: TemplateDto; typed: Typed | null; locations: Location[]; action: string; csrf: string }) {
  const { t, typed } = props;
  const v = typed?.content ?? { subject: t.subject, bodyText: t.bodyText, bodyHtml: t.bodyHtml };
  const email = t.channel === "email";
  return (
    <form id="template-form" method="post" action={`${props.action}/edit`}>
      <Csrf token={props.csrf} />
      <label for="edit-name">Template name</label>
      <input
        id="edit-name"
        name="name"
        type="text"
        required
        maxlength={200}
        value={typed?.name ?? t.name}
        autocomplete="off"
      />
      {email && (
        <>
          <label for="edit-subject">Subject</label>
          <input
            id="edit-subject"
            name="subject"
            type="text"
            maxlength={998}
            value={v.subject ?? ""}
            autocomplete="off"
          />
        </>
      )}
      <label for="edit-text">{BODY_LABEL[t.channel]}</label>
      <textarea id="edit-text" name="bodyText" rows={6} maxlength={20000}>
        {v.bodyText ?? ""}
      </textarea>
      {email && (
        <>
          <label for="edit-html">HTML version (optional)</label>
          <textarea id="edit-html" name="bodyHtml" rows={6} maxlength={100000}>
            {v.bodyHtml ?? ""}
          </textarea>
        </>
      )}
      <label for="preview-location">Preview with the values of</label>
      <select id="preview-location" name="previewLocationId">
        <option value="">Sample values (Sample Location)</option>
        {props.locations.map((l) => (
          <option value={l.id} selected={typed?.locationId === l.id}>
            {l.name}
          </option>
        ))}
      </select>
      <div class="actions">
        <button type="submit">{t.status === "approved" ? "Save as a new version (draft)" : "Save the draft"}</button>
        <button type="submit" class="secondary" formaction={`${props.action}/preview`}>
          Preview
        </button>
      </div>
    </form>
  );
}

async function templatePageOf(c: CC, typed: Typed | null = null, flash?: Flash): Promise<Response> {
  const id = c.req.param("templateId") ?? "";
  const t = await templateOf(c, id);
  const [tenant, saved, versions, custom, locations, meta, csrf] = await Promise.all([
    tenantOf(c),
    typed ? null : callOperation<Preview>(c, previewTemplateOperation, { params: { id: t.id } }),
    callOperation<Page<TemplateDto>>(c, listTemplatesOperation, { query: { rootId: t.rootId, limit: "50" } }),
    // the location variables' keys: template.tokens has no REST door (an agent tool), so its service
    customTokenKeys(svc(c)),
    callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } }),
    t.channel === "whatsapp" ? whatsAppStatesOf(c) : null,
    csrfOf(c),
  ]);
  const base = templateHref(c, t.id);
  const writer = can(c, "tenant_user") && t.status !== "archived";
  const manager = can(c, "manager");
  const result: PreviewResult = typed?.result ?? { preview: saved! };
  const post = (rest: string, label: string, cls?: string) => (
    <form method="post" action={`${base}${rest}`}>
      <Csrf token={csrf} />
      <button type="submit" class={cls}>
        {label}
      </button>
    </form>
  );
  return page(
    c,
    { title: t.name, section: "requests", tenant, flash },
    <>
      <p>
        <a href={templateHref(c)}>All templates</a>
      </p>
      <h1>{t.name}</h1>
      <RequestsNav c={c} current="templates" />
      <dl class="facts">
        <dt>Channel</dt>
        <dd>{CHANNEL_LABEL[t.channel]}</dd>
        <dt>Status</dt>
        <dd>
          <span class={TEMPLATE_STATUS_TONE[t.status]}>{TEMPLATE_STATUS_LABEL[t.status]}</span> · version {t.version}
          {t.status === "draft" && (
            <p class="small muted">Campaigns send the approved version of a template; a draft is not sent.</p>
          )}
        </dd>
        {t.approvedAt && (
          <>
            <dt>Approved</dt>
            <dd>
              <When iso={t.approvedAt} />
            </dd>
          </>
        )}
        <dt>Variables used</dt>
        <dd>{t.tokens.length ? t.tokens.map((k) => `{{${k}}}`).join(", ") : "none"}</dd>
      </dl>
      <div class="actions">
        {manager && t.status === "draft" && post("/approve", "Approve")}
        {can(c, "tenant_user") && t.status === "approved" && post("/version", "Start a new version", "secondary")}
        {manager && t.status !== "archived" && post("/archive", "Archive", "danger")}
      </div>
      <div class="two">
        <section class="card" aria-labelledby="editor">
          <h2 id="editor">{writer ? "Edit" : "Content"}</h2>
          {writer ? (
            <Editor t={t} typed={typed} locations={locations.data} action={base} csrf={csrf} />
          ) : (
            <>
              {t.subject !== null && (
                <p>
                  <strong>Subject:</strong> {t.subject}
                </p>
              )}
              <pre class="copy">{t.bodyText ?? ""}</pre>
              {t.bodyHtml !== null && (
                <details>
                  <summary>HTML version</summary>
                  <pre class="copy">{t.bodyHtml}</pre>
                </details>
              )}
            </>
          )}
          <Variables custom={custom} />
        </section>
        <section class="card" aria-labelledby="preview">
          <h2 id="preview">Preview</h2>
          <p class="muted small">With a sample customer, Jane Doe, and sample links.</p>
          <div id="template-preview" data-url={`${base}/preview`}>
            <PreviewPanel channel={t.channel} result={result} />
          </div>
          <h3>{CHANNEL_LABEL[t.channel]} rules</h3>
          <ChannelRules channel={t.channel} meta={meta?.data ?? []} />
        </section>
      </div>
      <table class="rows">
        <caption>Versions ({versions.total}), newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Approved</th>
          </tr>
        </thead>
        <tbody>
          {versions.data.map((x) => (
            <tr>
              <th scope="row" data-label="Version">
                {x.id === t.id ? (
                  <span aria-current="page">Version {x.version} (this one)</span>
                ) : (
                  <a href={templateHref(c, x.id)}>Version {x.version}</a>
                )}
              </th>
              <td data-label="Status">
                <span class={TEMPLATE_STATUS_TONE[x.status]}>{TEMPLATE_STATUS_LABEL[x.status]}</span>
              </td>
              <td data-label="Created">
                <When iso={x.createdAt} />
              </td>
              <td data-label="Approved">
                <When iso={x.approvedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>,
  );
}

export const templatePage = (c: CC) => templatePageOf(c);

const templateId = (c: CC) => c.req.param("templateId") ?? "";

/** REST: PATCH /v1/templates/{id} (canWrite). An approved template's edit is its next version, a new draft. */
export async function editTemplateSubmit(c: CC): Promise<Response> {
  const back = templateHref(c, templateId(c));
  return act(c, back, async () => {
    await asRest(c, canWrite);
    const { form, content } = await contentFields(c);
    const before = await templateOf(c, templateId(c));
    const after = await callOperation<TemplateDto>(c, updateTemplateOperation, {
      params: { id: before.id },
      body: { name: form.one("name"), ...content },
    });
    return redirectTo(c, templateHref(c, after.id), {
      kind: "notice",
      text:
        after.id === before.id
          ? "The draft is saved."
          : `Version ${after.version} is saved as a draft; version ${before.version} stays in use until it is approved.`,
    });
  });
}

/**
 * POST /v1/templates/preview of the fields as typed. The client part asks for the panel alone (JSON with its
 * HTML); without script, the answer is the page with the fields kept and the preview under them.
 */
export async function previewTemplateSubmit(c: CC): Promise<Response> {
  const t = await templateOf(c, templateId(c));
  const { form, content } = await contentFields(c);
  const locationId = form.one("previewLocationId");
  let result: PreviewResult;
  try {
    const preview = await callOperation<Preview>(c, previewTemplateContentOperation, {
      body: { channel: t.channel, ...content, ...(locationId ? { locationId } : {}) },
    });
    result = { preview };
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== "VALIDATION_ERROR") throw e;
    result = { error: sentenceOf(c, e) };
  }
  if (c.req.header("accept")?.includes("application/json")) {
    const html = renderHtml(<PreviewPanel channel={t.channel} result={result} />);
    return c.json({ html }, 200, { "cache-control": "no-store" });
  }
  return templatePageOf(c, { name: form.one("name"), content, locationId, result });
}

/** REST: POST /v1/templates/{id}/version (canWrite): the next version as a draft, copied from this one. */
export async function forkTemplateSubmit(c: CC): Promise<Response> {
  return act(c, templateHref(c, templateId(c)), async () => {
    const draft = await callOperation<TemplateDto>(c, createTemplateVersionOperation, {
      params: { id: templateId(c) },
    });
    return redirectTo(c, templateHref(c, draft.id), {
      kind: "notice",
      text: `Version ${draft.version} is a new draft; the approved version stays in use until this one is approved.`,
    });
  });
}

/** REST: POST /v1/templates/{id}/approve (canManage); its lint's refusals (a missing subject, a long SMS) as sentences. */
export async function approveTemplateSubmit(c: CC): Promise<Response> {
  const back = templateHref(c, templateId(c));
  return act(c, back, async () => {
    const t = await callOperation<TemplateDto>(c, approveTemplateOperation, { params: { id: templateId(c) } });
    return redirectTo(c, back, {
      kind: "notice",
      text: `Version ${t.version} is approved: campaigns using this template send it from now on.`,
    });
  });
}

/** REST: POST /v1/templates/{id}/archive (canManage). */
export async function archiveTemplateSubmit(c: CC): Promise<Response> {
  const back = templateHref(c, templateId(c));
  return act(c, back, async () => {
    const t = await callOperation<TemplateDto>(c, archiveTemplateOperation, { params: { id: templateId(c) } });
    return redirectTo(c, back, { kind: "notice", text: `Version ${t.version} of “${t.name}” is archived.` });
  });
}

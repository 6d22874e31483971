/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS, type MessageChannel, TEMPLATE_STATUSES, type TemplateStatus } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canWrite } from "../../../middleware/tenant";
import { listWhatsAppTemplatesOperation } from "../../messaging-settings/operations";
import type { WhatsAppTemplateStateSchema } from "../../messaging-settings/whatsapp-templates";
import { createTemplateOperation, getTemplateOperation, listTemplatesOperation } from "../../templates/operations";
import { type TemplateDto, TemplateListQuery } from "../../templates/schemas";
import { Pager, tenantHref, tenantOf, When } from "../atoms";
import { act, asRest, type CC, can, csrfOf, formOf, page, parsedOr400, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { CHANNEL_LABEL, FilterSelect, Filters, RequestsNav } from "./requests";

/*
 * Templates (docs/console.md, "Review requests"): the messages campaigns send, as GET /v1/templates lists them
 * (every role reads; filters channel and status, keyset pages), and a new draft (POST /v1/templates, tenant_user
 * and up: REST's canWrite, then the service, whose unknown-token refusal comes back as a sentence). A template's
 * own page (template.tsx) is its editor with the live preview, its rules and its versions.
 */

export const TEMPLATE_STATUS_LABEL: Record<TemplateStatus, string> = {
  draft: "Draft",
  approved: "Approved",
  archived: "Archived",
};
export const TEMPLATE_STATUS_TONE: Record<TemplateStatus, string> = {
  draft: "status warn",
  approved: "status ok",
  archived: "status",
};

export const templateHref = (c: CC, id = "", rest = "") =>
  tenantHref(c, `/templates${id ? `/${encodeURIComponent(id)}` : ""}${rest}`);

/** One template as GET /v1/templates/{id} reads it (its operation): a template's page, a binding, a variant. */
export const templateOf = (c: CC, id: string) =>
  callOperation<TemplateDto>(c, getTemplateOperation, { params: { id } });

/** The tenant's WhatsApp templates as Meta last reported them (GET /v1/settings/whatsapp/templates's operation). */
export const whatsAppStatesOf = (c: CC) =>
  callOperation<{ data: z.infer<typeof WhatsAppTemplateStateSchema>[] }>(c, listWhatsAppTemplatesOperation);

/** What each field is for on each channel (the service's approval lint: what a channel needs). */
export const BODY_LABEL: Record<MessageChannel, string> = {
  email: "Text version (optional when there is an HTML version)",
  sms: "Message",
  whatsapp: "Message (sent within 24 hours of the customer's last message)",
};

function NewTemplateForm(props: { action: string; csrf: string }) {
  return (
    <section class="card" aria-labelledby="new-template">
      <h2 id="new-template">New template</h2>
      <p class="muted small">
        It starts as a draft: you can preview and change it on its page, and a manager approves it before campaigns use
        it. Placeholders such as <code>{"{{firstName}}"}</code> and <code>{"{{reviewLink}}"}</code> are listed there.
      </p>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for="template-name">Template name</label>
        <input id="template-name" name="name" type="text" required maxlength={200} autocomplete="off" />
        <label for="template-channel">Channel</label>
        <select id="template-channel" name="channel" required>
          {MESSAGE_CHANNELS.map((ch) => (
            <option value={ch}>{CHANNEL_LABEL[ch]}</option>
          ))}
        </select>
        <label for="template-subject">Subject (email only)</label>
        <input id="template-subject" name="subject" type="text" maxlength={998} autocomplete="off" />
        <label for="template-text">Message text</label>
        <textarea id="template-text" name="bodyText" rows={5} maxlength={20000}>
          {"Hi {{firstName}}, thank you for visiting {{locationName}}. Would you tell us how we did? {{reviewLink}}"}
        </textarea>
        <label for="template-html">HTML version (email only, optional)</label>
        <textarea id="template-html" name="bodyHtml" rows={4} maxlength={100000} />
        <div class="actions">
          <button type="submit">Create the draft</button>
        </div>
      </form>
    </section>
  );
}

export async function templatesPage(c: CC): Promise<Response> {
  const query = parsedOr400(TemplateListQuery, {
    channel: c.req.query("channel") || undefined,
    status: c.req.query("status") || undefined,
    cursor: c.req.query("cursor") || undefined,
    limit: "50",
  });
  const [tenant, list, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Page<TemplateDto>>(c, listTemplatesOperation, {
      query: { channel: query.channel, status: query.status, cursor: query.cursor, limit: "50" },
    }),
    csrfOf(c),
  ]);
  const writer = can(c, "tenant_user");
  const filtered = Boolean(query.channel || query.status);
  return page(
    c,
    { title: "Templates", section: "requests", tenant },
    <>
      <h1>Templates</h1>
      <RequestsNav c={c} current="templates" />
      <Filters>
        <FilterSelect
          id="filter-channel"
          label="Channel"
          name="channel"
          value={query.channel}
          options={MESSAGE_CHANNELS.map((ch) => [ch, CHANNEL_LABEL[ch]])}
        />
        <FilterSelect
          id="filter-status"
          label="Status"
          name="status"
          value={query.status}
          options={TEMPLATE_STATUSES.map((st) => [st, TEMPLATE_STATUS_LABEL[st]])}
        />
      </Filters>
      {list.data.length === 0 ? (
        <p class="card">
          {filtered
            ? "No template matches these filters."
            : writer
              ? "No template yet. Write the first one below: the message your customers receive."
              : "No template yet. A team member writes them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Templates ({list.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Channel</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((t) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={templateHref(c, t.id)}>{t.name}</a>
                </th>
                <td data-label="Channel">{CHANNEL_LABEL[t.channel]}</td>
                <td data-label="Status">
                  <span class={TEMPLATE_STATUS_TONE[t.status]}>{TEMPLATE_STATUS_LABEL[t.status]}</span>
                </td>
                <td data-label="Version">{t.version}</td>
                <td data-label="Changed">
                  <When iso={t.updatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={templateHref(c)}
        params={{ channel: query.channel, status: query.status }}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
      {writer && <NewTemplateForm action={templateHref(c)} csrf={csrf} />}
    </>,
  );
}

/** The editor's text fields as POST /v1/templates and PATCH read them: an empty field is no content. */
export async function contentFields(c: CC) {
  const form = await formOf(c);
  const text = (name: string) => (form.one(name).trim() ? form.one(name).replace(/\r\n/g, "\n") : null);
  return {
    form,
    content: { subject: text("subject"), bodyText: text("bodyText"), bodyHtml: text("bodyHtml") },
  };
}

/** REST: POST /v1/templates (canWrite). Lands on the new draft's page, where it is previewed and approved. */
export async function createTemplateSubmit(c: CC): Promise<Response> {
  return act(c, templateHref(c), async () => {
    await asRest(c, canWrite);
    const { form, content } = await contentFields(c);
    const created = await callOperation<TemplateDto>(c, createTemplateOperation, {
      body: { name: form.one("name"), channel: form.one("channel"), ...content },
    });
    return redirectTo(c, templateHref(c, created.id), {
      kind: "notice",
      text: `The draft “${created.name}” is saved. Check its preview, then approve it.`,
    });
  });
}

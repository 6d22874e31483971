/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { MessageChannel } from "../../../db/schema";
import { ApiError, validationError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canManage } from "../../../middleware/tenant";
import { templateKey } from "../../../providers/messaging/template-store";
import {
  addCampaignTemplateOperation,
  listCampaignTemplatesOperation,
  removeCampaignTemplateOperation,
} from "../../campaigns/bindings.operations";
import type { BindingSchema } from "../../campaigns/bindings.schemas";
import {
  activateCampaignOperation,
  deactivateCampaignOperation,
  getCampaignOperation,
} from "../../campaigns/operations";
import type { CampaignDto } from "../../campaigns/schemas";
import {
  listCampaignSolicitationsOperation,
  sendCampaignBulkOperation,
  sendCampaignOperation,
} from "../../campaigns/send.operations";
import type { SendBulkResultSchema, SendResultSchema } from "../../campaigns/send.schemas";
import { getCampaignSequenceOperation } from "../../campaigns/sequences.operations";
import type { SequenceSchema } from "../../campaigns/sequences.schemas";
import { listContactsOperation } from "../../contacts/operations";
import { listExperimentsOperation } from "../../experiments/operations";
import type { ExperimentDto } from "../../experiments/schemas";
import { listLocationsOperation } from "../../locations/operations";
import type { LocationSchema } from "../../locations/schemas";
import { listSolicitationsOperation } from "../../solicitations/operations";
import type { SolicitationWithContactSchema } from "../../solicitations/schemas";
import { listTemplatesOperation } from "../../templates/operations";
import type { TemplateDto } from "../../templates/schemas";
import { tenantOf, When } from "../atoms";
import { act, asRest, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { CampaignProgress, figuresOf } from "./campaign-progress";
import { campaignHref, DESTINATION_LABEL, templateOption, usableByChannel } from "./campaigns";
import { EXPERIMENT_STATUS_LABEL, experimentHref } from "./experiments";
import { CAMPAIGN_TYPE_LABEL, CHANNEL_LABEL, channelsText, n, RequestsNav } from "./requests";
import { SequenceSection } from "./sequence";
import { contactText, solicitationsHref } from "./solicitations";
import { templateHref, templateOf, whatsAppStatesOf } from "./templates";

/*
 * One campaign (docs/console.md, "Review requests"): GET /v1/campaigns/{id} with its templates (GET .../templates),
 * its figures and its send's progress (campaign-progress.tsx), its sequence (sequence.tsx) and its experiments
 * (GET /v1/experiments?campaignId=). A manager sends it (POST /v1/campaigns/{id}/send to every reachable contact,
 * or /send-bulk to the rows of a CSV: the operations' own manager check), activates or deactivates it (POST
 * .../activate, .../deactivate), binds and unbinds templates (POST/DELETE .../templates), each after REST's
 * canManage, and each refusal comes back as a sentence.
 */

type Binding = z.infer<typeof BindingSchema>;
type Sequence = z.infer<typeof SequenceSchema>;
type Location = z.infer<typeof LocationSchema>;
type Solicitation = z.infer<typeof SolicitationWithContactSchema>;

const campaignId = (c: CC) => c.req.param("campaignId") ?? "";

/** How many contacts a channel reaches now (not opted out, with the address it needs): GET /v1/contacts's total. */
async function reachable(c: CC, channel: MessageChannel): Promise<number> {
  const address = channel === "email" ? { hasEmail: "true" } : { hasPhone: "true" };
  const page = await callOperation<{ total: number }>(c, listContactsOperation, {
    query: { isSuppressed: "false", ...address, limit: "1" },
  });
  return page.total;
}

function SendForm(props: {
  c: CC;
  campaign: CampaignDto;
  locations: Location[];
  templates: ReturnType<typeof usableByChannel>;
  reach: [MessageChannel, number][];
  csrf: string;
}) {
  const { campaign } = props;
  const nobody = props.reach.every(([, count]) => count === 0);
  return (
    <section class="card" aria-labelledby="send">
      <h2 id="send">Send</h2>
      <p class="small">
        Reachable now:{" "}
        {props.reach.map(([ch, count], i) => (
          <>
            {i > 0 && " · "}
            {n(count)} by {CHANNEL_LABEL[ch]}
          </>
        ))}{" "}
        (contacts not opted out with an{" "}
        {props.reach.length === 1 && props.reach[0]![0] === "email" ? "email" : "address"} for the channel). Consent,
        quiet hours and frequency caps are checked for each message.
      </p>
      {nobody && (
        <p class="warnbox">No contact can receive it yet: add or import contacts first, or send to a CSV file.</p>
      )}
      {props.locations.length === 0 && (
        <p class="warnbox">A send names the location whose name and links the message carries: add a location first.</p>
      )}
      <form method="post" action={campaignHref(props.c, campaign.id, "/send")} enctype="multipart/form-data">
        <Csrf token={props.csrf} />
        {/* one key per form shown: a second click or a resubmitted page sends nobody twice */}
        <input type="hidden" name="sendKey" value={crypto.randomUUID()} />
        <label for="send-location">Location</label>
        <select id="send-location" name="locationId" required>
          {props.locations.map((l) => (
            <option value={l.id} selected={l.id === campaign.locationId}>
              {l.name}
            </option>
          ))}
        </select>
        <label for="send-channel">Channel</label>
        <select id="send-channel" name="channel">
          {campaign.channels.map((ch) => (
            <option value={ch}>{CHANNEL_LABEL[ch]}</option>
          ))}
        </select>
        <label for="send-template">Message</label>
        <select id="send-template" name="templateId">
          <option value="">The campaign's template for the channel</option>
          {props.templates.map((t) => (
            <option value={t.id}>
              {CHANNEL_LABEL[t.channel]}: {templateOption(t)}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>To whom</legend>
          <label class="check" for="audience-all">
            <input id="audience-all" type="radio" name="audience" value="all" checked />
            <span>Every contact who can receive it, newest first</span>
          </label>
          <label for="send-limit">At most this many contacts</label>
          <input id="send-limit" name="limit" type="number" min={1} max={5000} value="2000" />
          <label class="check" for="audience-csv">
            <input id="audience-csv" type="radio" name="audience" value="csv" />
            <span>The people in a CSV file (each row becomes or updates a contact)</span>
          </label>
          <label for="send-file">CSV file: email, phone, firstName, lastName (and locationId, channel per row)</label>
          <input id="send-file" name="contacts" type="file" accept=".csv,text/csv" />
        </fieldset>
        <div class="actions">
          <button type="submit">Send now</button>
        </div>
      </form>
    </section>
  );
}

function ProblemRows({ title, rows, why }: { title: string; rows: Solicitation[]; why: (s: Solicitation) => string }) {
  return (
    <table class="rows">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Customer</th>
          <th scope="col">Channel</th>
          <th scope="col">When</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((s) => (
          <tr>
            <th scope="row" data-label="Customer">
              {contactText(s.contact)}
            </th>
            <td data-label="Channel">{CHANNEL_LABEL[s.channel]}</td>
            <td data-label="When">
              <When iso={s.sentAt ?? s.createdAt} />
            </td>
            <td data-label="Why">{why(s)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Bindings(props: {
  c: CC;
  campaign: CampaignDto;
  bindings: Binding[];
  templates: ReturnType<typeof usableByChannel>;
  csrf: string;
  manager: boolean;
}) {
  const { c, campaign } = props;
  const offered = props.templates.filter((t) => !props.bindings.some((b) => b.templateId === t.id));
  return (
    <section class="card" aria-labelledby="templates">
      <h2 id="templates">Templates</h2>
      {props.bindings.length === 0 ? (
        <p class="muted">No template: each channel sends the built-in message. {props.manager && "Add one below."}</p>
      ) : (
        <table class="rows">
          <caption>The messages this campaign sends, by channel</caption>
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col">Template</th>
              <th scope="col">Language, variant</th>
              {props.manager && <th scope="col">Remove</th>}
            </tr>
          </thead>
          <tbody>
            {props.bindings.map((b) => (
              <tr>
                <th scope="row" data-label="Channel">
                  {CHANNEL_LABEL[b.channel]}
                </th>
                <td data-label="Template">
                  <a href={templateHref(c, b.templateId)}>{templateOption(b.template)}</a>
                </td>
                <td data-label="Language, variant">
                  {b.locale}, {b.variantKey}
                </td>
                {props.manager && (
                  <td data-label="Remove">
                    <form
                      method="post"
                      action={campaignHref(c, campaign.id, `/templates/${encodeURIComponent(b.id)}/delete`)}
                    >
                      <Csrf token={props.csrf} />
                      <button type="submit" class="secondary" aria-label={`Remove ${b.template.name}`}>
                        Remove
                      </button>
                    </form>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="muted small">
        A send uses the approved version of a template; until one is approved, the built-in message.
      </p>
      {props.manager && offered.length > 0 && (
        <form method="post" action={campaignHref(c, campaign.id, "/templates")} class="filters">
          <Csrf token={props.csrf} />
          <div>
            <label for="bind-template">Add a template</label>
            <select id="bind-template" name="templateId" required>
              {offered.map((t) => (
                <option value={t.id}>
                  {CHANNEL_LABEL[t.channel]}: {templateOption(t)}
                </option>
              ))}
            </select>
          </div>
          <div class="actions">
            <button type="submit" class="secondary">
              Add
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

export async function campaignPage(c: CC): Promise<Response> {
  const campaign = await callOperation<CampaignDto>(c, getCampaignOperation, { params: { id: campaignId(c) } });
  const manager = can(c, "manager");
  const [tenant, figures, bindings, sequence, experiments, templates, locations, reach, meta, csrf] = await Promise.all(
    [
      tenantOf(c),
      figuresOf(c, campaign),
      callOperation<Binding[]>(c, listCampaignTemplatesOperation, { params: { id: campaign.id } }),
      callOperation<Sequence | null>(c, getCampaignSequenceOperation, { params: { id: campaign.id } }),
      callOperation<ExperimentDto[]>(c, listExperimentsOperation, { query: { campaignId: campaign.id } }),
      manager ? callOperation<Page<TemplateDto>>(c, listTemplatesOperation, { query: { limit: "200" } }) : null,
      manager ? callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } }) : null,
      manager && campaign.isActive
        ? Promise.all(campaign.channels.map(async (ch) => [ch, await reachable(c, ch)] as [MessageChannel, number]))
        : null,
      campaign.channels.includes("whatsapp") ? whatsAppStatesOf(c) : null,
      csrfOf(c),
    ],
  );
  // the rows behind the figures that need a reason, only when there are any
  const [failed, unknown] = await Promise.all([
    figures.failed > 0
      ? callOperation<Page<Solicitation>>(c, listSolicitationsOperation, {
          query: { campaignId: campaign.id, status: "FAILED", limit: "10" },
        })
      : null,
    figures.outcomeUnknown > 0
      ? callOperation<{ data: Solicitation[] }>(c, listCampaignSolicitationsOperation, {
          params: { id: campaign.id },
          query: { deliveryOutcome: "unknown", limit: "10" },
        })
      : null,
  ]);
  const usable = campaign.channels.flatMap((ch) => usableByChannel(templates?.data ?? [], ch));
  const wa = campaign.metadata.whatsappTemplate as { name?: string; language?: string } | undefined;
  const waKey = wa?.name ? templateKey(wa.name, wa.language ?? "") : null;
  const waState = waKey ? meta?.data.find((m) => m.name === waKey.name && m.language === waKey.language) : undefined;
  const base = campaignHref(c, campaign.id);
  return page(
    c,
    { title: campaign.name, section: "requests", tenant },
    <>
      <p>
        <a href={campaignHref(c)}>All campaigns</a>
      </p>
      <h1>{campaign.name}</h1>
      <RequestsNav c={c} current="campaigns" />
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <span class={campaign.isActive ? "status ok" : "status"}>{campaign.isActive ? "Active" : "Inactive"}</span>
        </dd>
        <dt>Kind</dt>
        <dd>{CAMPAIGN_TYPE_LABEL[campaign.type]}</dd>
        <dt>Channels</dt>
        <dd>{channelsText(campaign.channels)}</dd>
        <dt>Reviews go to</dt>
        <dd>{DESTINATION_LABEL[campaign.reviewDestination]}</dd>
        {(campaign.startsAt || campaign.endsAt) && (
          <>
            <dt>Runs</dt>
            <dd>
              from <When iso={campaign.startsAt} /> until <When iso={campaign.endsAt} />
            </dd>
          </>
        )}
        {wa?.name && (
          <>
            <dt>WhatsApp template at Meta</dt>
            <dd>
              <code>{wa.name}</code> ({wa.language}):{" "}
              {waState
                ? `${waState.category ?? "category not reported"}, ${waState.sendable ? "sendable" : `not sendable (${waState.status})`}`
                : "not reported by Meta yet"}
              {waState?.category === "MARKETING" && (
                <p class="small">Meta does not deliver MARKETING templates to US (+1) numbers: those sends fail.</p>
              )}
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <When iso={campaign.createdAt} />
        </dd>
      </dl>
      {manager && (
        <form method="post" action={`${base}/active`}>
          <Csrf token={csrf} />
          <input type="hidden" name="isActive" value={campaign.isActive ? "false" : "true"} />
          <div class="actions">
            <button type="submit" class="secondary">
              {campaign.isActive ? "Deactivate (stop sending)" : "Activate"}
            </button>
          </div>
        </form>
      )}
      <section class="card" aria-labelledby="progress">
        <h2 id="progress">Progress and results</h2>
        <div id="campaign-live" data-poll={`${base}/progress`} data-finished={figures.pending === 0 ? "true" : "false"}>
          <CampaignProgress f={figures} />
        </div>
        {figures.pending > 0 && (
          <noscript>
            <p>
              <a href={base}>Refresh</a> to see how far it is.
            </p>
          </noscript>
        )}
        <p class="muted small">
          Sent, delivered, clicked, reviewed, failed and refused come from the campaign's analytics, updated within
          seconds while it sends; “waiting” is counted live.{" "}
          <a href={`${solicitationsHref(c)}?campaignId=${encodeURIComponent(campaign.id)}`}>
            Every request of this campaign
          </a>
        </p>
        {failed && failed.data.length > 0 && (
          <ProblemRows
            title={`Failed (${n(failed.total)}), newest first`}
            rows={failed.data}
            why={(s) => s.failureReason ?? "no reason was recorded"}
          />
        )}
        {unknown && unknown.data.length > 0 && (
          <ProblemRows
            title="Outcome unknown: the provider was called, its answer was lost; not sent again"
            rows={unknown.data}
            why={() => "the provider's answer was lost; check your provider's log"}
          />
        )}
      </section>
      {manager &&
        (campaign.isActive ? (
          <SendForm
            c={c}
            campaign={campaign}
            locations={locations?.data ?? []}
            templates={usable}
            reach={reach ?? []}
            csrf={csrf}
          />
        ) : (
          <p class="card">This campaign is inactive: activate it to send it.</p>
        ))}
      <Bindings c={c} campaign={campaign} bindings={bindings} templates={usable} csrf={csrf} manager={manager} />
      <SequenceSection
        c={c}
        campaign={campaign}
        sequence={sequence}
        templates={templates?.data ?? []}
        csrf={csrf}
        manager={manager}
      />
      <section class="card" aria-labelledby="experiments">
        <h2 id="experiments">Experiments</h2>
        {experiments.length === 0 ? (
          <p class="muted">
            No A/B experiment on this campaign. <a href={experimentHref(c)}>Experiments</a> tests one message against
            another.
          </p>
        ) : (
          <ul>
            {experiments.map((e) => (
              <li>
                <a href={experimentHref(c, e.id)}>{e.name}</a> ({EXPERIMENT_STATUS_LABEL[e.status]})
              </li>
            ))}
          </ul>
        )}
      </section>
    </>,
  );
}

type SendResult = z.infer<typeof SendResultSchema>;
type SendBulkResult = z.infer<typeof SendBulkResultSchema>;

const sendText = (r: SendResult, channel: string) =>
  r.total === 0
    ? `Nobody was sent anything: no contact has an address for ${channel} without having opted out. Add or import contacts first.`
    : `${n(r.queued)} of ${n(r.total)} messages are queued; ${n(r.blocked)} refused by the sending policy${r.failed ? `; ${n(r.failed)} could not be used` : ""}. The progress shows below.`;

const bulkText = (r: SendBulkResult) =>
  `The file's ${n(r.total)} rows: ${n(r.queued)} queued, ${n(r.skipped)} refused by the sending policy, ${n(r.failed)} not usable${
    r.errors.length
      ? ` (${r.errors
          .slice(0, 3)
          .map((e) => `row ${e.row}: ${e.reason}`)
          .join("; ")}${r.errors.length > 3 ? "; …" : ""})`
      : ""
  }.`;

/**
 * REST: POST /v1/campaigns/{id}/send (every reachable contact, up to the limit, with the form's key as its
 * Idempotency-Key) or POST /v1/campaigns/{id}/send-bulk (the CSV's rows); both the operations' manager check.
 */
export async function sendCampaignSubmit(c: CC): Promise<Response> {
  const back = campaignHref(c, campaignId(c));
  return act(c, back, async () => {
    const form = await formOf(c);
    const fields = {
      locationId: form.one("locationId"),
      channel: form.one("channel"),
      ...(form.one("templateId") ? { templateId: form.one("templateId") } : {}),
    };
    if (form.one("audience") === "csv") {
      const r = await callOperation<SendBulkResult>(c, sendCampaignBulkOperation, {
        params: { id: campaignId(c) },
        form: { ...fields, contacts: form.file("contacts") },
      });
      return redirectTo(c, back, { kind: "notice", text: bulkText(r) });
    }
    const limit = form.one("limit").trim();
    const r = await callOperation<SendResult>(c, sendCampaignOperation, {
      params: { id: campaignId(c) },
      headers: form.one("sendKey") ? { "idempotency-key": form.one("sendKey") } : {},
      body: { ...fields, ...(limit ? { limit: Number(limit) } : {}) },
    });
    return redirectTo(c, back, { kind: r.total ? "notice" : "error", text: sendText(r, fields.channel) });
  });
}

/** REST: POST /v1/campaigns/{id}/activate or /deactivate (canManage). */
export async function campaignActiveSubmit(c: CC): Promise<Response> {
  const back = campaignHref(c, campaignId(c));
  return act(c, back, async () => {
    const on = (await formOf(c)).one("isActive") === "true";
    const after = await callOperation<CampaignDto>(c, on ? activateCampaignOperation : deactivateCampaignOperation, {
      params: { id: campaignId(c) },
    });
    return redirectTo(c, back, {
      kind: "notice",
      text: after.isActive
        ? `“${after.name}” is active.`
        : `“${after.name}” is inactive: it sends nothing, its sequences stop.`,
    });
  });
}

/** REST: POST /v1/campaigns/{id}/templates (canManage) with the chosen template on its own channel. */
export async function bindTemplateSubmit(c: CC): Promise<Response> {
  const back = `${campaignHref(c, campaignId(c))}#templates`;
  return act(c, back, async () => {
    await asRest(c, canManage);
    // a template the tenant does not have (or no id at all) is the body reference REST refuses (400), not a
    // missing page
    const template = await templateOf(c, (await formOf(c)).one("templateId")).catch((e) => {
      throw e instanceof ApiError && (e.code === "NOT_FOUND" || e.code === "VALIDATION_ERROR")
        ? validationError([{ path: "templateId", message: "Unknown template" }])
        : e;
    });
    await callOperation(c, addCampaignTemplateOperation, {
      params: { id: campaignId(c) },
      body: { templateId: template.id, channel: template.channel },
    });
    return redirectTo(c, back, {
      kind: "notice",
      text: `“${template.name}” is added for ${CHANNEL_LABEL[template.channel]}.`,
    });
  });
}

/** REST: DELETE /v1/campaigns/{id}/templates/{bindingId} (canManage). */
export async function unbindTemplateSubmit(c: CC): Promise<Response> {
  const back = `${campaignHref(c, campaignId(c))}#templates`;
  return act(c, back, async () => {
    await callOperation(c, removeCampaignTemplateOperation, {
      params: { id: campaignId(c), bindingId: c.req.param("bindingId") ?? "" },
    });
    return redirectTo(c, back, { kind: "notice", text: "The template is removed from this campaign." });
  });
}

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { CAMPAIGN_TYPES, MESSAGE_CHANNELS, type MessageChannel, REVIEW_DESTINATIONS } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { YELP_SOLICITING_FORBIDDEN } from "../../../lib/review-solicitation";
import { canManage } from "../../../middleware/tenant";
import { addCampaignTemplateOperation } from "../../campaigns/bindings.operations";
import { CreateBindingBody } from "../../campaigns/bindings.schemas";
import { createCampaignOperation, listCampaignsOperation } from "../../campaigns/operations";
import { type CampaignDto, CreateCampaignBody } from "../../campaigns/schemas";
import { listLocationsOperation } from "../../locations/operations";
import type { LocationSchema } from "../../locations/schemas";
import { listTemplatesOperation } from "../../templates/operations";
import type { TemplateDto } from "../../templates/schemas";
import { Pager, tenantHref, tenantOf, When } from "../atoms";
import { act, asRest, type CC, can, csrfOf, formOf, page, parsedOr400, redirectTo, sentenceOf } from "../kit";
import { Csrf } from "../layout";
import { CAMPAIGN_TYPE_LABEL, CHANNEL_LABEL, channelsText, FilterSelect, Filters, RequestsNav } from "./requests";
import { TEMPLATE_STATUS_LABEL } from "./templates";

/*
 * Campaigns (docs/console.md, "Review requests"): the list (GET /v1/campaigns, every role; keyset pages, active or
 * not) and a new campaign (a manager's: REST's canManage, then POST /v1/campaigns and, for each channel given a
 * template, POST /v1/campaigns/{id}/templates). A campaign names its channels, its templates, where customers are
 * sent and when it runs; whom it goes to is chosen when it is sent, on its own page (campaign.tsx): in this API
 * the audience is a send's (every reachable contact, or the rows of a CSV), not the campaign's.
 */

type Location = z.infer<typeof LocationSchema>;
type Destination = (typeof REVIEW_DESTINATIONS)[number];

export const campaignHref = (c: CC, id = "", rest = "") =>
  tenantHref(c, `/campaigns${id ? `/${encodeURIComponent(id)}` : ""}${rest}`);

/** Where the review link sends a customer (decisions.md, "Destinations"); Yelp is never offered (it is refused). */
export const DESTINATION_LABEL: Record<Destination, string> = {
  auto: "Automatic: Google when the location has a Google place id, else your feedback page",
  google: "Google",
  facebook: "Facebook",
  survey: "Your survey (the hosted feedback page)",
  feedback: "Your feedback page",
  kiosk: "Kiosk",
  yelp: "Yelp",
};
const OFFERED_DESTINATIONS = REVIEW_DESTINATIONS.filter((d) => d !== "yelp");

/** A datetime-local value (YYYY-MM-DDTHH:mm, read as UTC as its label says) as the API's ISO date-time. */
export const utcOf = (local: string) =>
  local.trim() ? (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local.trim()) ? `${local.trim()}:00Z` : local.trim()) : null;

/** The templates offered for each channel: those not archived (an archived one cannot be bound). */
export const usableByChannel = (templates: TemplateDto[], channel: MessageChannel) =>
  templates.filter((t) => t.channel === channel && t.status !== "archived");

export const templateOption = (t: TemplateDto) => `${t.name} (v${t.version}, ${TEMPLATE_STATUS_LABEL[t.status]})`;

function NewCampaignForm(props: { action: string; csrf: string; locations: Location[]; templates: TemplateDto[] }) {
  return (
    <section class="card" aria-labelledby="new-campaign">
      <h2 id="new-campaign">New campaign</h2>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for="campaign-name">Campaign name</label>
        <input id="campaign-name" name="name" type="text" required maxlength={200} autocomplete="off" />
        <label for="campaign-type">Kind</label>
        <select id="campaign-type" name="type">
          {CAMPAIGN_TYPES.map((t) => (
            <option value={t}>{CAMPAIGN_TYPE_LABEL[t]}</option>
          ))}
        </select>
        <fieldset>
          <legend>Channels and their templates</legend>
          <p class="muted small">
            Tick each channel the campaign may use and choose its message. A channel without a template sends the
            built-in message; a draft template is used once it is approved.
          </p>
          {MESSAGE_CHANNELS.map((ch) => {
            const options = usableByChannel(props.templates, ch);
            return (
              <div>
                <label class="check" for={`channel-${ch}`}>
                  <input id={`channel-${ch}`} type="checkbox" name="channels" value={ch} checked={ch === "email"} />
                  <span>{CHANNEL_LABEL[ch]}</span>
                </label>
                <label for={`template-${ch}`}>{CHANNEL_LABEL[ch]} template</label>
                <select id={`template-${ch}`} name={`template_${ch}`}>
                  <option value="">{options.length ? "None (the built-in message)" : "No template yet"}</option>
                  {options.map((t) => (
                    <option value={t.id}>{templateOption(t)}</option>
                  ))}
                </select>
              </div>
            );
          })}
        </fieldset>
        <label for="campaign-location">Location (optional)</label>
        <select id="campaign-location" name="locationId">
          <option value="">Any location (chosen when sending)</option>
          {props.locations.map((l) => (
            <option value={l.id}>{l.name}</option>
          ))}
        </select>
        <label for="campaign-destination">Where the review link sends customers</label>
        <select id="campaign-destination" name="reviewDestination">
          {OFFERED_DESTINATIONS.map((d) => (
            <option value={d}>{DESTINATION_LABEL[d]}</option>
          ))}
        </select>
        <p class="muted small">Yelp is not offered: {YELP_SOLICITING_FORBIDDEN}.</p>
        <fieldset>
          <legend>When it runs (optional, UTC)</legend>
          <label for="campaign-starts">Starts</label>
          <input id="campaign-starts" name="startsAt" type="datetime-local" />
          <label for="campaign-ends">Ends</label>
          <input id="campaign-ends" name="endsAt" type="datetime-local" />
          <p class="muted small">
            A drip sequence stops sending after the end. Sends themselves go when you press Send on the campaign.
          </p>
        </fieldset>
        <fieldset>
          <legend>WhatsApp template approved by Meta (only for WhatsApp)</legend>
          <p class="muted small">
            Outside 24 hours of a customer's last message WhatsApp only delivers a template Meta approved: its name and
            language as registered at Meta.
          </p>
          <label for="campaign-wa-name">Meta template name</label>
          <input id="campaign-wa-name" name="whatsappName" type="text" maxlength={512} autocomplete="off" />
          <label for="campaign-wa-language">Language (for example en_US)</label>
          <input id="campaign-wa-language" name="whatsappLanguage" type="text" maxlength={20} autocomplete="off" />
          <label for="campaign-wa-params">Its parameters, in order (variables, comma-separated)</label>
          <input
            id="campaign-wa-params"
            name="whatsappParams"
            type="text"
            maxlength={500}
            placeholder="firstName, reviewLink"
            autocomplete="off"
          />
        </fieldset>
        <div class="actions">
          <button type="submit">Create the campaign</button>
        </div>
      </form>
    </section>
  );
}

export async function campaignsPage(c: CC): Promise<Response> {
  const cursor = c.req.query("cursor") || undefined;
  const isActive = c.req.query("isActive") || undefined;
  const manager = can(c, "manager");
  const [tenant, list, csrf, locations, templates] = await Promise.all([
    tenantOf(c),
    callOperation<Page<CampaignDto>>(c, listCampaignsOperation, { query: { cursor, isActive, limit: "50" } }),
    csrfOf(c),
    manager ? callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } }) : null,
    manager ? callOperation<Page<TemplateDto>>(c, listTemplatesOperation, { query: { limit: "200" } }) : null,
  ]);
  const base = campaignHref(c);
  return page(
    c,
    { title: "Campaigns", section: "requests", tenant },
    <>
      <h1>Campaigns</h1>
      <RequestsNav c={c} current="campaigns" />
      <Filters>
        <FilterSelect
          id="filter-active"
          label="State"
          name="isActive"
          value={isActive}
          options={[
            ["true", "Active"],
            ["false", "Inactive"],
          ]}
        />
      </Filters>
      {list.data.length === 0 ? (
        <p class="card">
          {isActive
            ? "No campaign in this state."
            : manager
              ? "No campaign yet. Create one below; write its message first under Templates."
              : "No campaign yet. A manager of this business creates them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Campaigns ({list.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Channels</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((x) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={campaignHref(c, x.id)}>{x.name}</a>
                </th>
                <td data-label="Kind">{CAMPAIGN_TYPE_LABEL[x.type]}</td>
                <td data-label="Channels">{channelsText(x.channels)}</td>
                <td data-label="State">
                  <span class={x.isActive ? "status ok" : "status"}>{x.isActive ? "Active" : "Inactive"}</span>
                </td>
                <td data-label="Created">
                  <When iso={x.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={base}
        params={{ isActive }}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!cursor}
      />
      {manager && (
        <NewCampaignForm
          action={base}
          csrf={csrf}
          locations={locations?.data ?? []}
          templates={templates?.data ?? []}
        />
      )}
    </>,
  );
}

const commaList = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * REST: POST /v1/campaigns, then POST /v1/campaigns/{id}/templates per channel given a template (canManage). Both
 * inputs are read with their REST schemas before anything is made, so a bad field makes nothing.
 */
export async function createCampaignSubmit(c: CC): Promise<Response> {
  return act(c, campaignHref(c), async () => {
    await asRest(c, canManage);
    const form = await formOf(c);
    const channels = form.all("channels");
    const wa = { name: form.one("whatsappName").trim(), language: form.one("whatsappLanguage").trim() };
    const input = parsedOr400(CreateCampaignBody, {
      name: form.one("name"),
      type: form.one("type"),
      channels,
      locationId: form.one("locationId") || null,
      reviewDestination: form.one("reviewDestination") || undefined,
      startsAt: utcOf(form.one("startsAt")),
      endsAt: utcOf(form.one("endsAt")),
      metadata:
        wa.name || wa.language
          ? { whatsappTemplate: { ...wa, params: commaList(form.one("whatsappParams")) } }
          : undefined,
    });
    const bindings = input.channels.flatMap((channel) => {
      const templateId = form.one(`template_${channel}`);
      return templateId ? [parsedOr400(CreateBindingBody, { templateId, channel })] : [];
    });
    const created = await callOperation<CampaignDto>(c, createCampaignOperation, { body: input });
    for (const b of bindings) {
      try {
        await callOperation(c, addCampaignTemplateOperation, { params: { id: created.id }, body: b });
      } catch (e) {
        // decided: the campaign stays (it is valid without a template); the page says what was not added
        if (!(e instanceof ApiError)) throw e;
        return redirectTo(c, campaignHref(c, created.id), {
          kind: "error",
          text: `The campaign “${created.name}” is created, but its ${CHANNEL_LABEL[b.channel]} template was not added: ${sentenceOf(c, e)} Add it under Templates below.`,
        });
      }
    }
    return redirectTo(c, campaignHref(c, created.id), {
      kind: "notice",
      text: `The campaign “${created.name}” is created and active. Send it below when you are ready.`,
    });
  });
}

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { CRM_REQUIREMENTS, CRM_SYSTEMS } from "../../../providers/crm";
import { REVIEW_SITES, SITE_REQUIREMENTS } from "../../../providers/review-sites";
import {
  createIntegrationOperation,
  deleteIntegrationOperation,
  getIntegrationOperation,
  listIntegrationsOperation,
  testIntegrationOperation,
  updateIntegrationOperation,
} from "../../integrations/operations";
import type { ConnectionTestSchema, IntegrationSchema } from "../../integrations/schemas";
import { tenantHref, When } from "../atoms";
import { blankToNull, ticked, withLabels } from "../form-values";
import { act, type CC, can, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { ButtonForm, ListPager, type Location, LocationSelect, listPage, placeName } from "../places";

/*
 * Review sites (docs/console.md, issue #46 item 3): the tenant's connections as GET /v1/integrations lists them
 * (every role reads them; credentials are never returned, only whether some are stored), each with its state and,
 * when the site said a person must act (`needsAttention`), what to do in a sentence. A tenant admin connects one
 * (POST /v1/integrations), updates it (PATCH /v1/integrations/{id}: new details or a new token, which also clears
 * what needed attention), tests it (POST /v1/integrations/{id}/test) and deletes it (DELETE); each form calls
 * REST's operation (callOperation: its canAdminister, schemas and service). Secrets are write-only: the fields
 * are always empty, never filled back.
 */

type Integration = z.infer<typeof IntegrationSchema>;
type Provider = (typeof REVIEW_SITES)[number] | (typeof CRM_SYSTEMS)[number];

const PROVIDER_NAME: Record<string, string> = {
  google: "Google Business Profile",
  yelp: "Yelp",
  facebook: "Facebook",
  trustpilot: "Trustpilot",
  hubspot: "HubSpot",
  salesforce: "Salesforce",
};
const providerName = (t: string) => PROVIDER_NAME[t] ?? t;

/** What each provider's connect needs: its required keys (the service's own lists) and the optional ones it reads. */
const OPTIONAL: Partial<Record<Provider, { config?: string[]; credentials?: string[] }>> = {
  yelp: { credentials: ["partnerAccessToken"] },
  facebook: { config: ["graphVersion"] },
  trustpilot: { config: ["businessUserId"] },
};
const REQUIRED: Record<Provider, { config: string[]; credentials: string[] }> = {
  ...SITE_REQUIREMENTS,
  ...CRM_REQUIREMENTS,
};
const PROVIDERS = [...REVIEW_SITES, ...CRM_SYSTEMS] as Provider[];
const isSite = (t: string) => (REVIEW_SITES as readonly string[]).includes(t);

/** Each field's label, by provider and key; where the site shows it. */
const FIELD: Record<string, [label: string, help?: string]> = {
  "google.accountId": ["Account id", "The number in accounts/… of your Business Profile."],
  "google.locationId": ["Business Profile location id", "The number in locations/… of this place."],
  "google.accessToken": ["OAuth access token", "From the Google account that manages the profile."],
  "yelp.businessId": ["Yelp business id", "The part after /biz/ in the Yelp page's address."],
  "yelp.apiKey": ["Yelp Fusion API key", "From your app on Yelp's developer site; reads reviews."],
  "yelp.partnerAccessToken": [
    "Business owner's token (optional)",
    "For replies through Yelp's Respond to Reviews partner API; without it, replies are posted by hand.",
  ],
  "facebook.pageId": ["Facebook page id"],
  "facebook.graphVersion": ["Graph API version (optional)", "For example v22.0; the default is the one we test."],
  "facebook.pageAccessToken": ["Page access token", "With pages_read_user_content and pages_manage_engagement."],
  "trustpilot.businessUnitId": ["Business unit id"],
  "trustpilot.businessUserId": ["Business user id (optional)", "Needed to reply to reviews."],
  "trustpilot.accessToken": ["Access token"],
  "hubspot.accessToken": ["Private app access token"],
  "salesforce.instanceUrl": ["Instance address", "For example https://yourcompany.my.salesforce.com"],
  "salesforce.accessToken": ["OAuth access token"],
};
const labelOf = (type: string, key: string) => FIELD[`${type}.${key}`]?.[0] ?? key;

interface KeyList {
  config: string[];
  credentials: string[];
}
const keysOf = (type: Provider): KeyList => ({
  config: [...REQUIRED[type].config, ...(OPTIONAL[type]?.config ?? [])],
  credentials: [...REQUIRED[type].credentials, ...(OPTIONAL[type]?.credentials ?? [])],
});

/** A refusal's field (`config.businessId`) as the form labels it. */
const labelsFor = (type: string): Record<string, string> => {
  const keys = PROVIDERS.includes(type as Provider) ? keysOf(type as Provider) : { config: [], credentials: [] };
  return {
    name: "Name",
    locationId: "Location",
    ...Object.fromEntries(keys.config.map((k) => [`config.${k}`, labelOf(type, k)])),
    ...Object.fromEntries(keys.credentials.map((k) => [`credentials.${k}`, labelOf(type, k)])),
  };
};

/**
 * What a person does about each `attention.code` the sites set (providers/review-sites: graph-errors.ts,
 * yelp.ts). An unknown code still gets the site's own words and the general fix.
 */
const ATTENTION: Record<string, string> = {
  token_invalid:
    "The site no longer accepts the stored token (it expired or was revoked). Paste a new one under “Update the connection”; reading resumes with the next sync.",
  permission_missing:
    "The token lacks a permission this needs. Grant it to the app on the site (Facebook: pages_read_user_content; Yelp: Respond to Reviews), then paste the new token under “Update the connection”.",
  facebook_api_deprecated:
    "Facebook retired the API version this connection reads with. Set a current Graph API version under “Update the connection” (or leave it empty for ours); until then no reviews are read.",
  yelp_owner_photo_missing:
    "Yelp needs the business owner's own photo on biz.yelp.com before replies can be posted. Add it there, then update the connection; until then, reply on Yelp by hand.",
  yelp_business_not_claimed:
    "Yelp cannot tell that this business is claimed. Claim it on biz.yelp.com with the owner's account, then update the connection.",
};
export const attentionSentence = (code: string) =>
  ATTENTION[code] ?? "The site refused this connection. Fix what it says on the site, then update the connection.";

function stateOf(i: Integration): { text: string; tone: string } {
  if (!i.isEnabled) return { text: "Off", tone: "status warn" };
  if (i.needsAttention) return { text: "Needs you", tone: "status bad" };
  if (!i.hasCredentials) return { text: "No credentials", tone: "status bad" };
  if (i.lastSyncStatus === "error") return { text: "Last sync failed", tone: "status bad" };
  if (i.lastSyncStatus === "rate_limited") return { text: "Waiting on the site's limit", tone: "status warn" };
  if (i.lastSyncStatus === "ok") return { text: "Working", tone: "status ok" };
  return { text: "Not synced yet", tone: "status" };
}

const REPLY_ACCESS: Record<string, string> = {
  granted: "Replies go out by API.",
  denied: "The site does not take replies by API here: replies are posted by hand.",
};

/** The provider's fields: config values filled back when editing, secrets always empty (write-only). */
function ProviderFields(props: { p: string; type: Provider; i?: Integration }) {
  const keys = keysOf(props.type);
  const required = REQUIRED[props.type];
  const input = (key: string, secret: boolean) => {
    const id = `${props.p}-${key}`;
    const [label, help] = FIELD[`${props.type}.${key}`] ?? [key];
    const mustGive = secret ? !props.i && required.credentials.includes(key) : required.config.includes(key);
    const value = secret ? "" : String(props.i?.config[key] ?? "");
    return (
      <>
        <label for={id}>{label}</label>
        <input
          id={id}
          name={`${secret ? "credentials" : "config"}.${key}`}
          type={secret ? "password" : "text"}
          value={value}
          required={mustGive}
          autocomplete={secret ? "new-password" : "off"}
          spellcheck={false}
          aria-describedby={help ? `${id}-help` : undefined}
        />
        {help && (
          <p id={`${id}-help`} class="muted small">
            {help}
          </p>
        )}
      </>
    );
  };
  return (
    <>
      {keys.config.map((k) => input(k, false))}
      {props.i && keys.credentials.length > 0 && (
        <p class="muted small">
          Secrets are never shown again. Leave them empty to keep the stored ones; to replace them, give all of them.
        </p>
      )}
      {keys.credentials.map((k) => input(k, true))}
    </>
  );
}

function ConnectForm(props: { type: Provider; action: string; csrf: string; locations: Location[] }) {
  const p = `new-${props.type}`;
  return (
    <details class="card">
      <summary>{providerName(props.type)}</summary>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <input type="hidden" name="connectorType" value={props.type} />
        <label for={`${p}-name`}>Name</label>
        <input
          id={`${p}-name`}
          name="name"
          type="text"
          required
          maxlength={200}
          value={providerName(props.type)}
          autocomplete="off"
        />
        <label for={`${p}-location`}>Location</label>
        <LocationSelect
          id={`${p}-location`}
          locations={props.locations}
          none={isSite(props.type) ? undefined : "No location"}
        />
        <ProviderFields p={p} type={props.type} />
        <div class="actions">
          <button type="submit">Connect {providerName(props.type)}</button>
        </div>
      </form>
    </details>
  );
}

function IntegrationRow(props: { i: Integration; admin: boolean; csrf: string; base: string; locations: Location[] }) {
  const { i, admin, csrf } = props;
  const state = stateOf(i);
  const path = (rest: string) => `${props.base}/${encodeURIComponent(i.id)}${rest}`;
  const p = `edit-${i.id}`;
  return (
    <tr>
      <th scope="row" data-label="Connection">
        {i.name}
        <span class="muted small"> · {providerName(i.connectorType)}</span>
      </th>
      <td data-label="Location">{placeName(props.locations, i.locationId)}</td>
      <td data-label="State">
        <span class={state.tone}>{state.text}</span>
        {i.attention && <p class="small">{attentionSentence(i.attention.code)}</p>}
        {i.attention && <p class="muted small">The site said: {i.attention.message}</p>}
        {!i.attention && i.lastSyncStatus !== "ok" && i.lastSyncError && (
          <p class="muted small">The site said: {i.lastSyncError}</p>
        )}
        {i.replyAccess && <p class="muted small">{REPLY_ACCESS[i.replyAccess]}</p>}
      </td>
      <td data-label="Last sync">
        <When iso={i.lastSyncAt} />
      </td>
      {admin && (
        <td data-label="Change">
          <div class="inline">
            <ButtonForm action={path("/test")} csrf={csrf} label="Test" name={i.name} />
            <ButtonForm action={path("/delete")} csrf={csrf} label="Delete" danger name={i.name} />
          </div>
          {PROVIDERS.includes(i.connectorType as Provider) && (
            <details>
              <summary>Update the connection</summary>
              <form method="post" action={path("")}>
                <Csrf token={csrf} />
                <label for={`${p}-name`}>Name</label>
                <input id={`${p}-name`} name="name" type="text" required maxlength={200} value={i.name} />
                <label for={`${p}-location`}>Location</label>
                <LocationSelect
                  id={`${p}-location`}
                  locations={props.locations}
                  selected={i.locationId}
                  none={isSite(i.connectorType) ? undefined : "No location"}
                />
                <ProviderFields p={p} type={i.connectorType as Provider} i={i} />
                <label class="check" for={`${p}-on`}>
                  <input id={`${p}-on`} type="checkbox" name="isEnabled" value="true" checked={i.isEnabled} />
                  <span>On (reads reviews)</span>
                </label>
                <div class="actions">
                  <button type="submit">Save the connection</button>
                </div>
              </form>
            </details>
          )}
        </td>
      )}
    </tr>
  );
}

export async function integrationsPage(c: CC): Promise<Response> {
  const admin = can(c, "tenant_admin");
  const { cursor, tenant, list, csrf, locations, base } = await listPage(c, "/integrations", (cursor) =>
    callOperation<Page<Integration>>(c, listIntegrationsOperation, { query: { cursor, limit: "50" } }),
  );
  const attention = list.data.filter((i) => i.needsAttention);
  return page(
    c,
    { title: "Review sites", section: "integrations", tenant },
    <>
      <h1>Review sites</h1>
      <p class="muted">
        Each connection reads one location's reviews from a site and, where the site allows it, posts your replies.
      </p>
      {attention.length > 0 && (
        <p class="warnbox" role="status">
          {attention.length === 1 ? "One connection needs" : `${attention.length} connections need`} you: see “Needs
          you” below.
        </p>
      )}
      {list.total === 0 ? (
        <p class="card">
          No site is connected yet.{" "}
          {admin
            ? locations.length
              ? "Connect Google first below: most reviews are there."
              : "Add a location first, then connect its sites."
            : "An admin of this business connects them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Connections ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">Connection</th>
              <th scope="col">Location</th>
              <th scope="col">State</th>
              <th scope="col">Last sync</th>
              {admin && <th scope="col">Change</th>}
            </tr>
          </thead>
          <tbody>
            {list.data.map((i) => (
              <IntegrationRow i={i} admin={admin} csrf={csrf} base={base} locations={locations} />
            ))}
          </tbody>
        </table>
      )}
      <ListPager base={base} list={list} cursor={cursor} />
      {admin && locations.length === 0 && (
        <p class="card">
          A review site is connected for a location: <a href={tenantHref(c, "/locations")}>add a location</a> first.
        </p>
      )}
      {admin && locations.length > 0 && (
        <section aria-labelledby="connect">
          <h2 id="connect">Connect a review site (or a CRM)</h2>
          <p class="muted small">
            What you paste is stored encrypted and never shown again. Test a connection after adding it.
          </p>
          {PROVIDERS.map((type) => (
            <ConnectForm type={type} action={base} csrf={csrf} locations={locations} />
          ))}
        </section>
      )}
    </>,
  );
}

/** The provider's fields of the form: config as typed (blank left out), credentials only when one is given. */
function providerBody(form: Awaited<ReturnType<typeof formOf>>, type: string) {
  const keys = PROVIDERS.includes(type as Provider) ? keysOf(type as Provider) : { config: [], credentials: [] };
  const config = Object.fromEntries(
    keys.config.flatMap((k) => {
      const v = form.one(`config.${k}`).trim();
      return v ? [[k, v]] : [];
    }),
  );
  const credentials = Object.fromEntries(
    keys.credentials.flatMap((k) => {
      const v = form.one(`credentials.${k}`);
      return v ? [[k, v]] : [];
    }),
  );
  return { config, credentials: Object.keys(credentials).length ? credentials : undefined };
}

const idOf = (c: CC) => ({ params: { id: c.req.param("integrationId") ?? "" } });
const back = (c: CC) => tenantHref(c, "/integrations");

/** REST: POST /v1/integrations (tenant_admin). */
export async function connectSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const type = form.one("connectorType");
  return act(c, back(c), () =>
    withLabels(labelsFor(type), async () => {
      const made = await callOperation<Integration>(c, createIntegrationOperation, {
        body: {
          connectorType: type,
          name: form.one("name"),
          locationId: blankToNull(form.one("locationId")),
          ...providerBody(form, type),
        },
      });
      return redirectTo(c, back(c), {
        kind: "notice",
        text: `${providerName(made.connectorType)} is connected as “${made.name}”. Test it to see that the site accepts it.`,
      });
    }),
  );
}

/** REST: PATCH /v1/integrations/{id} (tenant_admin): config replaced whole, credentials only when given. */
export async function updateIntegrationSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const before = await callOperation<Integration>(c, getIntegrationOperation, idOf(c));
    return withLabels(labelsFor(before.connectorType), async () => {
      const form = await formOf(c);
      const { config, credentials } = providerBody(form, before.connectorType);
      // keys the form does not offer (a sandbox's apiBaseUrl) stay as they are
      const kept = Object.fromEntries(
        Object.entries(before.config).filter(([k]) => !keysOf(before.connectorType as Provider).config.includes(k)),
      );
      const after = await callOperation<Integration>(c, updateIntegrationOperation, {
        ...idOf(c),
        body: {
          name: form.one("name"),
          locationId: blankToNull(form.one("locationId")),
          isEnabled: ticked(form.one("isEnabled")),
          config: { ...kept, ...config },
          ...(credentials ? { credentials } : {}),
        },
      });
      return redirectTo(c, back(c), {
        kind: "notice",
        text: `“${after.name}” is saved${credentials ? " with the new credentials" : ""}. Test it to see that the site accepts it.`,
      });
    });
  });
}

/** The answer of POST /v1/integrations/{id}/test as a sentence. */
export function testSentence(name: string, r: z.infer<typeof ConnectionTestSchema>): string {
  const site = providerName(r.connectorType);
  if (r.ok) return `${site} accepted “${name}”: the connection works.`;
  const status = r.upstreamStatus ? ` (HTTP ${r.upstreamStatus})` : "";
  const fix =
    r.upstreamStatus === 401 || r.upstreamStatus === 403
      ? " Paste a new token under “Update the connection”."
      : " Check the ids under “Update the connection”, or try again later.";
  return `${site} refused “${name}”${status}: ${r.message.replace(/\.$/, "")}.${fix}`;
}

/** REST: POST /v1/integrations/{id}/test (tenant_admin); a site's refusal is the test's answer, not an error. */
export async function testIntegrationSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const i = await callOperation<Integration>(c, getIntegrationOperation, idOf(c));
    const result = await callOperation<z.infer<typeof ConnectionTestSchema>>(c, testIntegrationOperation, idOf(c));
    return redirectTo(c, back(c), { kind: result.ok ? "notice" : "error", text: testSentence(i.name, result) });
  });
}

/** REST: DELETE /v1/integrations/{id} (tenant_admin). */
export async function deleteIntegrationSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const i = await callOperation<Integration>(c, getIntegrationOperation, idOf(c));
    await callOperation(c, deleteIntegrationOperation, idOf(c));
    return redirectTo(c, back(c), {
      kind: "notice",
      text: `“${i.name}” is deleted: its stored credentials are gone, and the reviews already read stay.`,
    });
  });
}

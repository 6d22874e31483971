/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canManage } from "../../../middleware/tenant";
import { listBrandsOperation } from "../../brands/operations";
import {
  createLocationOperation,
  getLocationOperation,
  listLocationsOperation,
  updateLocationOperation,
} from "../../locations/operations";
import { listRegionsOperation } from "../../regions/operations";
import { listLocationReviewUrlsOperation } from "../../review-links/operations";
import type { LocationReviewUrlsSchema } from "../../review-links/schemas";
import { tenantHref, tenantOf } from "../atoms";
import { blankToNull, blankToUndefined, numberOrNull, ticked, withLabels } from "../form-values";
import { act, asRest, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { FormCard, ListPager, type Location, StateTag, TimeZoneSelect } from "../places";

/*
 * Locations (docs/console.md, issue #46 item 3): the tenant's places as GET /v1/locations lists them (every
 * role reads them), each with its address and review-site ids (Google place id, Yelp business id, Facebook page
 * id and their pages' links). A manager adds one (POST /v1/locations) and edits one, deactivation included
 * (PATCH /v1/locations/{id}). Each read and form calls its REST operation (callOperation: REST's role check and
 * schemas): the brand and region selects read GET /v1/brands and /v1/regions, a location's write-a-review links
 * GET /v1/locations/{id}/review-urls.
 */

type Field = [key: string, label: string, type?: "email" | "url" | "tel", help?: string];

const ADDRESS: Field[] = [
  ["addressLine1", "Street address"],
  ["addressLine2", "Address line 2 (optional)"],
  ["city", "City"],
  ["state", "State or region"],
  ["postalCode", "Postal code"],
];
const CONTACT: Field[] = [
  ["phone", "Phone", "tel"],
  ["email", "Email", "email"],
  ["websiteUrl", "Website", "url"],
];
/** the review-site ids and pages (locations/schemas.ts), where each is found */
const SITES: Field[] = [
  [
    "googlePlaceId",
    "Google place id",
    undefined,
    "Starts with ChIJ. Find it with Google's Place ID Finder; the write-a-review link is made from it.",
  ],
  ["googleMyBusinessUrl", "Google Business Profile link", "url"],
  ["yelpBusinessId", "Yelp business id", undefined, "The part after /biz/ in your Yelp page's address."],
  ["yelpUrl", "Yelp page", "url"],
  ["facebookPageId", "Facebook page id", undefined, "Under About, Page transparency, on your Facebook page."],
  ["facebookUrl", "Facebook page link", "url"],
];
const TEXT_FIELDS = [...ADDRESS, ...CONTACT, ...SITES, ["externalId", "Your own id for it (optional)"] as Field];

/** The schema's field names as the form labels them (refusals name the label). */
const LABELS: Record<string, string> = {
  name: "Name",
  country: "Country",
  timezone: "Time zone",
  locale: "Language",
  brandId: "Brand",
  regionId: "Region",
  latitude: "Latitude",
  longitude: "Longitude",
  ...Object.fromEntries(TEXT_FIELDS.map(([k, l]) => [k, l])),
};

interface Named {
  id: string;
  name: string;
}
interface Choices {
  brands: Named[];
  regions: Named[];
}

/** The brand and region selects' options (GET /v1/brands and /v1/regions: every role reads them). */
async function choicesOf(c: CC): Promise<Choices> {
  const [brands, regions] = await Promise.all([
    callOperation<Page<Named>>(c, listBrandsOperation, { query: { limit: "200" } }),
    callOperation<Page<Named>>(c, listRegionsOperation, { query: { limit: "200" } }),
  ]);
  return { brands: brands.data, regions: regions.data };
}

function TextInput(props: { p: string; field: Field; value: string | null | undefined }) {
  const [key, label, type, help] = props.field;
  const id = `${props.p}-${key}`;
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={key}
        type={type ?? "text"}
        value={props.value ?? ""}
        autocomplete="off"
        aria-describedby={help ? `${id}-help` : undefined}
      />
      {help && (
        <p id={`${id}-help`} class="muted small">
          {help}
        </p>
      )}
    </>
  );
}

/** Every field of a location, filled with `l`'s values when editing. `p` keeps the ids unique on the page. */
function LocationFields(props: { p: string; l?: Location; choices: Choices }) {
  const { p, l, choices } = props;
  const value = (k: string) => (l ? (l as unknown as Record<string, string | null>)[k] : undefined);
  return (
    <>
      <label for={`${p}-name`}>Name</label>
      <input id={`${p}-name`} name="name" type="text" required maxlength={200} value={l?.name ?? ""} />
      {choices.brands.length > 1 && (
        <>
          <label for={`${p}-brand`}>Brand</label>
          <select id={`${p}-brand`} name="brandId">
            {!l && <option value="">The first brand</option>}
            {choices.brands.map((b) => (
              <option value={b.id} selected={b.id === l?.brandId}>
                {b.name}
              </option>
            ))}
          </select>
        </>
      )}
      {choices.regions.length > 0 && (
        <>
          <label for={`${p}-region`}>Region</label>
          <select id={`${p}-region`} name="regionId">
            <option value="">No region</option>
            {choices.regions.map((r) => (
              <option value={r.id} selected={r.id === l?.regionId}>
                {r.name}
              </option>
            ))}
          </select>
        </>
      )}
      <fieldset>
        <legend>Address</legend>
        {ADDRESS.map((f) => (
          <TextInput p={p} field={f} value={value(f[0])} />
        ))}
        <label for={`${p}-country`}>Country</label>
        <input
          id={`${p}-country`}
          name="country"
          type="text"
          maxlength={2}
          value={l?.country ?? "US"}
          aria-describedby={`${p}-country-help`}
        />
        <p id={`${p}-country-help`} class="muted small">
          Two letters, e.g. US, GB, CA.
        </p>
        <label for={`${p}-timezone`}>Time zone</label>
        <TimeZoneSelect id={`${p}-timezone`} name="timezone" selected={l?.timezone ?? "UTC"} />
        <p class="muted small">Quiet hours and digests follow it.</p>
      </fieldset>
      <fieldset>
        <legend>Contact</legend>
        {CONTACT.map((f) => (
          <TextInput p={p} field={f} value={value(f[0])} />
        ))}
      </fieldset>
      <fieldset>
        <legend>Review sites</legend>
        {SITES.map((f) => (
          <TextInput p={p} field={f} value={value(f[0])} />
        ))}
      </fieldset>
      <details>
        <summary>More: language, your own id, map position</summary>
        <label for={`${p}-locale`}>Language</label>
        <input
          id={`${p}-locale`}
          name="locale"
          type="text"
          maxlength={35}
          value={l?.locale ?? "en-US"}
          aria-describedby={`${p}-locale-help`}
        />
        <p id={`${p}-locale-help`} class="muted small">
          A language tag such as en-US or fr-CA.
        </p>
        <TextInput p={p} field={["externalId", "Your own id for it (optional)"]} value={l?.externalId} />
        <label for={`${p}-lat`}>Latitude</label>
        <input id={`${p}-lat`} name="latitude" type="text" inputmode="decimal" value={l?.latitude?.toString() ?? ""} />
        <label for={`${p}-lng`}>Longitude</label>
        <input
          id={`${p}-lng`}
          name="longitude"
          type="text"
          inputmode="decimal"
          value={l?.longitude?.toString() ?? ""}
        />
      </details>
    </>
  );
}

const addressText = (l: Location) => [l.city, l.state, l.country].filter(Boolean).join(", ");

/** Which review sites a location is set up for, by their ids or pages. */
const sitesText = (l: Location) =>
  [
    (l.googlePlaceId || l.googleMyBusinessUrl) && "Google",
    (l.yelpBusinessId || l.yelpUrl) && "Yelp",
    (l.facebookPageId || l.facebookUrl) && "Facebook",
  ]
    .filter(Boolean)
    .join(", ");

export async function locationsPage(c: CC): Promise<Response> {
  const cursor = c.req.query("cursor") || undefined;
  const manager = can(c, "manager");
  const [tenant, list, csrf, choices] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Location>>(c, listLocationsOperation, { query: { cursor, limit: "50" } }),
    csrfOf(c),
    manager ? choicesOf(c) : null,
  ]);
  const base = tenantHref(c, "/locations");
  return page(
    c,
    { title: "Locations", section: "locations", tenant },
    <>
      <h1>Locations</h1>
      {list.total === 0 ? (
        <p class="card">
          No location yet.{" "}
          {manager
            ? "Add your first below: reviews, review links and requests all belong to a location."
            : "A manager of this business adds them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Locations ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Where</th>
              <th scope="col">Review sites</th>
              <th scope="col">Time zone</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((l) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={`${base}/${encodeURIComponent(l.id)}`}>{l.name}</a>
                </th>
                <td data-label="Where">{addressText(l)}</td>
                <td data-label="Review sites">{sitesText(l) || <span class="muted">none set up</span>}</td>
                <td data-label="Time zone">{l.timezone}</td>
                <td data-label="State">
                  <StateTag on={l.isActive} yes="Active" no="Inactive" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListPager base={base} list={list} cursor={cursor} />
      {choices && (
        <FormCard id="add" title="Add a location" action={base} csrf={csrf} button="Add the location">
          <LocationFields p="new" choices={choices} />
        </FormCard>
      )}
    </>,
  );
}

const locationId = (c: CC) => c.req.param("locationId") ?? "";
/** the location of the page's path, as the operations' path parameter */
const locationParams = (c: CC) => ({ params: { id: locationId(c) } });

export async function locationPage(c: CC): Promise<Response> {
  const l = await callOperation<Location>(c, getLocationOperation, locationParams(c));
  const manager = can(c, "manager");
  const [tenant, csrf, choices, urls] = await Promise.all([
    tenantOf(c),
    csrfOf(c),
    choicesOf(c),
    callOperation<z.infer<typeof LocationReviewUrlsSchema>>(c, listLocationReviewUrlsOperation, {
      params: { id: l.id },
    }),
  ]);
  const base = tenantHref(c, `/locations/${encodeURIComponent(l.id)}`);
  const writeReview = [
    ["Google", urls.google],
    ["Yelp", urls.yelp],
    ["Facebook", urls.facebook],
  ] as const;
  return page(
    c,
    { title: l.name, section: "locations", tenant },
    <>
      <p class="small">
        <a href={tenantHref(c, "/locations")}>All locations</a>
      </p>
      <h1>{l.name}</h1>
      {!l.isActive && (
        <p class="warnbox">
          This location is inactive: its review links and QR codes tell customers the link is no longer active.
        </p>
      )}
      <section class="card" aria-labelledby="pages">
        <h2 id="pages">Where customers review it</h2>
        <dl class="facts">
          {writeReview.map(([site, url]) => (
            <>
              <dt>{site}</dt>
              <dd>{url ? <a href={url}>{url}</a> : <span class="muted">not set up: add its id below</span>}</dd>
            </>
          ))}
        </dl>
        <p class="muted small">
          Open each link to check it is your page. Review links and QR codes send customers to these pages (
          <a href={tenantHref(c, "/review-links")}>Review links and QR codes</a>).
        </p>
      </section>
      <section class="card" aria-labelledby="edit">
        <h2 id="edit">{manager ? "Edit the location" : "Details"}</h2>
        {!manager && <p class="muted">A manager of this business changes these.</p>}
        <form method="post" action={base}>
          <Csrf token={csrf} />
          <fieldset disabled={!manager} class="plain">
            <legend class="vh">The location</legend>
            <LocationFields p="edit" l={l} choices={choices} />
            <label class="check" for="edit-active">
              <input id="edit-active" type="checkbox" name="isActive" value="true" checked={l.isActive} />
              <span>Active (untick to retire it: its review links stop working)</span>
            </label>
          </fieldset>
          {manager && (
            <div class="actions">
              <button type="submit">Save the location</button>
            </div>
          )}
        </form>
      </section>
    </>,
  );
}

/** The form as POST /v1/locations or PATCH /v1/locations/{id} takes it: blank text clears (PATCH) or is left out. */
function locationBody(form: Awaited<ReturnType<typeof formOf>>, kind: "create" | "update") {
  const text = (k: string) => (kind === "create" ? blankToUndefined(form.one(k)) : blankToNull(form.one(k)));
  const number = (k: string) => {
    const v = numberOrNull(form.one(k));
    return kind === "create" && v === null ? undefined : v;
  };
  return {
    name: form.one("name"),
    ...Object.fromEntries(TEXT_FIELDS.map(([k]) => [k, text(k)])),
    brandId: blankToUndefined(form.one("brandId")),
    regionId: text("regionId"),
    country: blankToUndefined(form.one("country")),
    timezone: blankToUndefined(form.one("timezone")),
    locale: blankToUndefined(form.one("locale")),
    latitude: number("latitude"),
    longitude: number("longitude"),
    ...(kind === "update" ? { isActive: ticked(form.one("isActive")) } : {}),
  };
}

/** REST: POST /v1/locations (createLocation: manager, its body schema). */
export async function createLocationSubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, "/locations");
  return act(c, back, () =>
    withLabels(LABELS, async () => {
      const created = await callOperation<Location>(c, createLocationOperation, {
        body: locationBody(await formOf(c), "create"),
      });
      return redirectTo(c, back, {
        kind: "notice",
        text: `The location “${created.name}” is added. Connect its review sites and make a review link next.`,
      });
    }),
  );
}

/** REST: PATCH /v1/locations/{id} (updateLocation: manager, its body schema). */
export async function updateLocationSubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, `/locations/${encodeURIComponent(locationId(c))}`);
  return act(c, back, () =>
    withLabels(LABELS, async () => {
      // REST's role check first (as its middleware runs), then another tenant's location is a 404 before anything
      // in the form is judged
      await asRest(c, canManage);
      await callOperation(c, getLocationOperation, locationParams(c));
      const after = await callOperation<Location>(c, updateLocationOperation, {
        ...locationParams(c),
        body: locationBody(await formOf(c), "update"),
      });
      return redirectTo(c, back, {
        kind: "notice",
        text: after.isActive ? `“${after.name}” is saved.` : `“${after.name}” is saved, and inactive.`,
      });
    }),
  );
}

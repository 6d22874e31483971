/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canManage } from "../../../middleware/tenant";
import {
  createReviewLinkOperation,
  deleteReviewLinkOperation,
  getReviewLinkOperation,
  listReviewLinksOperation,
  reviewLinkStatsOperation,
  updateReviewLinkOperation,
} from "../../review-links/operations";
import type { ReviewLinkSchema, ReviewLinkStatsSchema } from "../../review-links/schemas";
import { siteName, tenantHref, tenantOf, When } from "../atoms";
import { blankToUndefined, numberOrUndefined, ticked, withLabels } from "../form-values";
import { act, asRest, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { ButtonForm, FormCard, ListPager, LocationSelect, listPage, locationsOf, placeName, StateTag } from "../places";

/*
 * Review links and QR codes (docs/console.md, issue #46 item 3): short links `/l/{slug}` that send each
 * customer to one of a location's review sites, drawn by the shares set here (never by anything about the
 * customer), and their printable QR codes, as GET /v1/review-links lists them (every role reads them). A
 * link's page shows its opens (GET /v1/review-links/{id}/stats) and its QR code, downloaded as PNG or SVG from
 * the public /l/{slug}/qr route (`format=png|svg`, `size` for the PNG). A manager creates (POST), edits or
 * retires (PATCH) and deletes (DELETE) one. Each read and form calls its REST operation (callOperation: REST's
 * role check and schemas).
 */

type ReviewLink = z.infer<typeof ReviewLinkSchema>;
type Stats = z.infer<typeof ReviewLinkStatsSchema>;

/** the sites a link may send to (Yelp forbids asking for reviews: SiteWeightsSchema refuses it) */
const SITES = ["google", "facebook"] as const;
const LABELS = { name: "Name", locationId: "Location", "weights.google": "Google", "weights.facebook": "Facebook" };

/** "Google 70%, Facebook 30%" */
function sharesText(weights: ReviewLink["weights"]): string {
  const total = Object.values(weights).reduce((n: number, w) => n + (w ?? 0), 0);
  return (
    Object.entries(weights)
      .filter(([, w]) => (w ?? 0) > 0)
      .map(([site, w]) => `${siteName(site)} ${Math.round(((w ?? 0) / total) * 100)}%`)
      .join(", ") || "nowhere"
  );
}

/** Where the QR code is fetched on this origin (the public route; the code itself encodes PUBLIC_BASE_URL). */
const qrPath = (slug: string, format: "png" | "svg", size?: number) =>
  `/l/${encodeURIComponent(slug)}/qr?format=${format}${size ? `&size=${size}` : ""}`;

function WeightFields(props: { p: string; weights?: ReviewLink["weights"] }) {
  return (
    <fieldset>
      <legend>Where customers are sent (shares)</legend>
      {SITES.map((site) => (
        <>
          <label for={`${props.p}-${site}`}>{siteName(site)}</label>
          <input
            id={`${props.p}-${site}`}
            name={`weights.${site}`}
            type="text"
            inputmode="numeric"
            value={String(props.weights?.[site] ?? (props.weights ? 0 : site === "google" ? 100 : 0))}
          />
        </>
      ))}
      <p class="muted small">
        Relative shares: Google 70 and Facebook 30 send 7 in 10 customers to Google. A site the location has no page on
        passes its share to the others. Yelp is not offered: Yelp forbids asking customers for reviews.
      </p>
    </fieldset>
  );
}

export async function reviewLinksPage(c: CC): Promise<Response> {
  const manager = can(c, "manager");
  const { cursor, tenant, list, csrf, locations, base } = await listPage(c, "/review-links", (cursor) =>
    callOperation<Page<ReviewLink>>(c, listReviewLinksOperation, { query: { cursor, limit: "50" } }),
  );
  return page(
    c,
    { title: "Review links and QR codes", section: "review-links", tenant },
    <>
      <h1>Review links and QR codes</h1>
      <p class="muted">
        Share a link, or print its QR code at the counter: each customer who opens it is sent to one of your review
        pages, by the shares you set.
      </p>
      {list.total === 0 ? (
        <p class="card">
          No review link yet.{" "}
          {manager
            ? locations.length
              ? "Make one below for a location."
              : "Add a location with its Google place id first."
            : "A manager of this business makes them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Review links ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Location</th>
              <th scope="col">Sends to</th>
              <th scope="col">Link</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((l) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={`${base}/${encodeURIComponent(l.id)}`}>{l.name}</a>
                </th>
                <td data-label="Location">{placeName(locations, l.locationId)}</td>
                <td data-label="Sends to">{sharesText(l.weights)}</td>
                <td data-label="Link">
                  <code>{l.url}</code>
                </td>
                <td data-label="State">
                  <StateTag on={l.isActive} yes="Active" no="Retired" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListPager base={base} list={list} cursor={cursor} />
      {manager && locations.length > 0 && (
        <FormCard id="make" title="Make a review link" action={base} csrf={csrf} button="Make the link">
          <label for="new-location">Location</label>
          <LocationSelect id="new-location" locations={locations} />
          <label for="new-name">Name</label>
          <input id="new-name" name="name" type="text" maxlength={120} value="Review link" />
          <WeightFields p="new" />
        </FormCard>
      )}
    </>,
  );
}

const linkId = (c: CC) => c.req.param("linkId") ?? "";
/** the link of the page's path, as the operations' path parameter */
const linkParams = (c: CC) => ({ params: { id: linkId(c) } });
const getLink = (c: CC) => callOperation<ReviewLink>(c, getReviewLinkOperation, linkParams(c));

function Counts(props: { title: string; counts: Record<string, number>; label: (k: string) => string }) {
  const entries = Object.entries(props.counts);
  return (
    <>
      <dt>{props.title}</dt>
      <dd>{entries.map(([k, n]) => `${props.label(k)} ${n}`).join(", ") || <span class="muted">none yet</span>}</dd>
    </>
  );
}

export async function reviewLinkPage(c: CC): Promise<Response> {
  const link = await getLink(c);
  const manager = can(c, "manager");
  const [tenant, csrf, locations, stats] = await Promise.all([
    tenantOf(c),
    csrfOf(c),
    locationsOf(c),
    callOperation<Stats>(c, reviewLinkStatsOperation, { params: { id: link.id } }),
  ]);
  const base = tenantHref(c, `/review-links/${encodeURIComponent(link.id)}`);
  const fileName = link.name.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "") || "review-link";
  return page(
    c,
    { title: link.name, section: "review-links", tenant },
    <>
      <p class="small">
        <a href={tenantHref(c, "/review-links")}>All review links</a>
      </p>
      <h1>{link.name}</h1>
      <section class="card" aria-labelledby="link">
        <h2 id="link">The link</h2>
        <pre class="copy" id="link-url">
          {link.url}
        </pre>
        <div class="actions">
          <button
            type="button"
            class="secondary"
            data-copy="link-url"
            data-copied="Link copied to the clipboard."
            hidden
          >
            Copy the link
          </button>
        </div>
        <dl class="facts">
          <dt>Location</dt>
          <dd>{placeName(locations, link.locationId)}</dd>
          <dt>Sends to</dt>
          <dd>{sharesText(link.weights)}</dd>
          <dt>State</dt>
          <dd>{link.isActive ? "Active" : "Retired: the link and its QR code say it is no longer active"}</dd>
          <dt>Made</dt>
          <dd>
            <When iso={link.createdAt} />
          </dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="opens">
        <h2 id="opens">Opens</h2>
        <dl class="facts">
          <dt>Visits</dt>
          <dd>{stats.total}</dd>
          <Counts title="From" counts={stats.bySource} label={(k) => (k === "qr" ? "QR code" : "the link")} />
          <Counts title="Sent to" counts={stats.bySite} label={siteName} />
        </dl>
        <p class="muted small">
          A visitor who opens it again within {stats.visitWindowMinutes} minutes counts once; link previews do not
          count.
        </p>
      </section>
      {link.isActive && (
        <section class="card" aria-labelledby="qr">
          <h2 id="qr">QR code</h2>
          <img
            class="qr"
            src={qrPath(link.slug, "svg")}
            alt={`QR code of the review link ${link.name}`}
            width="160"
            height="160"
          />
          <p class="muted small">Scans are counted apart from opens of the link.</p>
          <div class="actions">
            <a class="button secondary" href={qrPath(link.slug, "png", 1024)} download={`${fileName}-qr.png`}>
              Download PNG
            </a>
            <a class="button secondary" href={qrPath(link.slug, "svg")} download={`${fileName}-qr.svg`}>
              Download SVG (for print)
            </a>
          </div>
        </section>
      )}
      {manager && (
        <FormCard
          id="edit"
          title="Change it"
          action={base}
          csrf={csrf}
          button="Save the link"
          after={
            <>
              <p class="muted small">Deleting removes its counts too, and printed QR codes stop working.</p>
              <ButtonForm action={`${base}/delete`} csrf={csrf} label="Delete the link" danger />
            </>
          }
        >
          <label for="edit-name">Name</label>
          <input id="edit-name" name="name" type="text" required maxlength={120} value={link.name} />
          <WeightFields p="edit" weights={link.weights} />
          <label class="check" for="edit-active">
            <input id="edit-active" type="checkbox" name="isActive" value="true" checked={link.isActive} />
            <span>Active (untick to retire it; printed codes then say it is no longer active)</span>
          </label>
        </FormCard>
      )}
    </>,
  );
}

const weightsOf = (form: Awaited<ReturnType<typeof formOf>>) =>
  Object.fromEntries(SITES.map((s) => [s, numberOrUndefined(form.one(`weights.${s}`))]));

/** REST: POST /v1/review-links (createReviewLink: manager, its body schema). */
export async function createReviewLinkSubmit(c: CC): Promise<Response> {
  const list = tenantHref(c, "/review-links");
  return act(c, list, () =>
    withLabels(LABELS, async () => {
      const form = await formOf(c);
      const made = await callOperation<ReviewLink>(c, createReviewLinkOperation, {
        body: {
          locationId: form.one("locationId"),
          name: blankToUndefined(form.one("name")),
          weights: weightsOf(form),
        },
      });
      return redirectTo(c, `${list}/${encodeURIComponent(made.id)}`, {
        kind: "notice",
        text: `“${made.name}” is ready: copy the link or download its QR code.`,
      });
    }),
  );
}

/** REST: PATCH /v1/review-links/{id} (updateReviewLink: manager, its body schema). */
export async function updateReviewLinkSubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, `/review-links/${encodeURIComponent(linkId(c))}`);
  return act(c, back, () =>
    withLabels(LABELS, async () => {
      // REST's role check first (as its middleware runs), then another tenant's link is a 404 before anything in
      // the form is judged
      await asRest(c, canManage);
      await getLink(c);
      const form = await formOf(c);
      const after = await callOperation<ReviewLink>(c, updateReviewLinkOperation, {
        ...linkParams(c),
        body: { name: form.one("name"), weights: weightsOf(form), isActive: ticked(form.one("isActive")) },
      });
      return redirectTo(c, back, {
        kind: "notice",
        text: after.isActive ? `“${after.name}” is saved.` : `“${after.name}” is saved and retired.`,
      });
    }),
  );
}

/** REST: DELETE /v1/review-links/{id} (deleteReviewLink, manager; REST's role check before the 404 read). */
export async function deleteReviewLinkSubmit(c: CC): Promise<Response> {
  const list = tenantHref(c, "/review-links");
  return act(c, list, async () => {
    await asRest(c, canManage);
    const link = await getLink(c);
    await callOperation(c, deleteReviewLinkOperation, { params: { id: link.id } });
    return redirectTo(c, list, { kind: "notice", text: `“${link.name}” is deleted; its QR codes no longer work.` });
  });
}

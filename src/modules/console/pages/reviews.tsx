/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { SENTIMENTS } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { getInboxItemOperation } from "../../inbox/operations";
import type { InboxItemDetailSchema } from "../../inbox/schemas";
import { listLocationsOperation } from "../../locations/operations";
import type { LocationSchema } from "../../locations/schemas";
import { getReviewOperation, listReviewResponsesOperation, listReviewsOperation } from "../../reviews/operations";
import type { ReviewResponseSchema } from "../../reviews/responses.schemas";
import { type ReviewSchema, SiteType } from "../../reviews/schemas";
import { Pager, Stars, siteName, tenantHref, tenantOf, When } from "../atoms";
import { type CC, can, csrfOf, page } from "../kit";
import { NewReply, ReplyCard } from "./replies";

/*
 * Reviews (docs/console.md): the list with GET /v1/reviews's filters (site, rating, location, date,
 * sentiment), and a review with its sentiment, topics and replies (GET /v1/reviews/{id}, its /responses, and
 * its inbox item: GET /v1/inbox/{id}?type=review), each through its operation (callOperation).
 */

type Location = z.infer<typeof LocationSchema>;
type Review = z.infer<typeof ReviewSchema>;
type Reply = z.infer<typeof ReviewResponseSchema>;

const FILTERS = ["siteType", "ratingMin", "ratingMax", "locationId", "dateFrom", "dateTo", "sentiment"] as const;
const SITES = SiteType.options;

export async function reviewsPage(c: CC): Promise<Response> {
  const f: Record<string, string | undefined> = Object.fromEntries(
    FILTERS.map((k) => [k, c.req.query(k) || undefined]),
  );
  const cursor = c.req.query("cursor") || undefined;
  const [tenant, list, locations] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Review>>(c, listReviewsOperation, { query: { ...f, cursor, limit: "25" } }),
    callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } }),
  ]);
  const places = new Map(locations.data.map((l) => [l.id, l.name]));
  const base = tenantHref(c, "/reviews");
  return page(
    c,
    { title: "Reviews", section: "reviews", tenant },
    <>
      <h1>Reviews</h1>
      <form method="get" class="filters" aria-label="Filter the reviews">
        <div>
          <label for="siteType">Site</label>
          <select id="siteType" name="siteType">
            <option value="">Every site</option>
            {SITES.map((s) => (
              <option value={s} selected={f.siteType === s}>
                {siteName(s)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="ratingMin">Stars from</label>
          <select id="ratingMin" name="ratingMin">
            <option value="">1</option>
            {[2, 3, 4, 5].map((n) => (
              <option value={String(n)} selected={f.ratingMin === String(n)}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="ratingMax">Stars to</label>
          <select id="ratingMax" name="ratingMax">
            <option value="">5</option>
            {[1, 2, 3, 4].map((n) => (
              <option value={String(n)} selected={f.ratingMax === String(n)}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="locationId">Location</label>
          <select id="locationId" name="locationId">
            <option value="">All locations</option>
            {locations.data.map((l) => (
              <option value={l.id} selected={f.locationId === l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="sentiment">Sentiment</label>
          <select id="sentiment" name="sentiment">
            <option value="">Any</option>
            {SENTIMENTS.map((s) => (
              <option value={s} selected={f.sentiment === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="dateFrom">From</label>
          <input id="dateFrom" name="dateFrom" type="date" value={f.dateFrom ?? ""} />
        </div>
        <div>
          <label for="dateTo">To</label>
          <input id="dateTo" name="dateTo" type="date" value={f.dateTo ?? ""} />
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Filter
          </button>
        </div>
      </form>
      <p class="muted" role="status">
        {list.total} review{list.total === 1 ? "" : "s"}
      </p>
      <ul class="items">
        {list.data.map((r) => (
          <li>
            <div class="item-head">
              <a href={`${base}/${encodeURIComponent(r.id)}`}>
                {r.authorName ?? "A reviewer"} on {siteName(r.siteType)}
              </a>
              <Stars rating={r.rating} />
            </div>
            {r.text && <p>{r.text.length > 280 ? `${r.text.slice(0, 279)}…` : r.text}</p>}
            <ul class="meta">
              <li>{places.get(r.locationId) ?? "a location"}</li>
              <li>
                <When iso={r.publishedAt ?? r.createdAt} />
              </li>
              {r.sentiment && <li>{r.sentiment}</li>}
              <li>{r.status === "responded" ? "answered" : "not answered"}</li>
              {r.topics.map((t) => (
                <li class="tag">{t}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <Pager
        base={base}
        params={f}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!cursor}
      />
    </>,
  );
}

export async function reviewPage(c: CC): Promise<Response> {
  const id = c.req.param("reviewId") ?? "";
  const [tenant, review, replies, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Review>(c, getReviewOperation, { params: { id } }),
    callOperation<Reply[]>(c, listReviewResponsesOperation, { params: { reviewId: id } }),
    csrfOf(c),
  ]);
  // its inbox item, as GET /v1/inbox/{id}?type=review finds it by the review's id; without one, no link
  const item = await callOperation<z.infer<typeof InboxItemDetailSchema>>(c, getInboxItemOperation, {
    params: { id: review.id },
    query: { type: "review" },
  }).catch(() => null);
  const base = tenantHref(c);
  const back = tenantHref(c, `/reviews/${encodeURIComponent(review.id)}`);
  const open = replies.some((r) => ["draft", "submitted", "approved"].includes(r.status));
  return page(
    c,
    { title: "Review", section: "reviews", tenant },
    <>
      <p>
        <a href={tenantHref(c, "/reviews")}>Back to the reviews</a>
      </p>
      <h1>
        {review.authorName ?? "A reviewer"} on {siteName(review.siteType)}
      </h1>
      <section class="card" aria-label="The review">
        <Stars rating={review.rating} />
        {review.text ? <blockquote>{review.text}</blockquote> : <p class="muted">No text, only a rating.</p>}
        <dl class="facts">
          <dt>Written</dt>
          <dd>
            <When iso={review.publishedAt ?? review.createdAt} />
          </dd>
          <dt>Sentiment</dt>
          <dd>
            {review.sentiment ?? "not known"}
            {review.sentimentScore !== null ? ` (${review.sentimentScore.toFixed(2)})` : ""}
          </dd>
          <dt>Topics</dt>
          <dd>{review.topics.length ? review.topics.join(", ") : "none found"}</dd>
          <dt>Language</dt>
          <dd>{review.language ?? "not known"}</dd>
          <dt>Answered</dt>
          <dd>{review.status === "responded" ? "yes" : "not yet"}</dd>
        </dl>
        <ul class="meta">
          {review.externalUrl && (
            <li>
              <a href={review.externalUrl}>Open it on {siteName(review.siteType)}</a>
            </li>
          )}
          {item && (
            <li>
              <a href={tenantHref(c, `/inbox/${encodeURIComponent(item.id)}`)}>Its inbox item</a>
            </li>
          )}
        </ul>
      </section>
      <h2>Replies</h2>
      {replies.length === 0 && <p class="muted">No reply yet.</p>}
      {replies.map((r) => (
        <ReplyCard
          c={c}
          r={r}
          site={review.siteType}
          reviewUrl={review.externalUrl}
          csrf={csrf}
          back={back}
          base={base}
        />
      ))}
      {can(c, "tenant_user") && !open && <NewReply reviewId={review.id} csrf={csrf} back={back} base={base} />}
    </>,
  );
}

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import {
  funnelAnalyticsOperation,
  responseAnalyticsOperation,
  reviewAnalyticsOperation,
} from "../../analytics/operations";
import type { FunnelSchema, ResponseAnalyticsSchema, ReviewAnalyticsSchema } from "../../analytics/schemas";
import { listLocationsOperation } from "../../locations/operations";
import type { LocationSchema } from "../../locations/schemas";
import { listOverdueResponsesOperation } from "../../reviews/operations";
import type { OverdueReviewSchema } from "../../reviews/responses.schemas";
import { minutesText, pct, Stars, siteName, tenantHref, tenantOf, When } from "../atoms";
import { FunnelChart, lastMondays, TrendChart } from "../charts";
import { type CC, page } from "../kit";
import { rememberTenant } from "./tenants";

/*
 * Home (docs/console.md): the tenant's figures over the last 12 weeks, overall or for one location, from the
 * operations REST serves (analytics.reviews, analytics.responses, analytics.funnel, sla.overdue, location.list):
 * rating and review count with a weekly trend, response rate and median response time, the request funnel
 * and the reviews past their reply SLA; a table compares the locations.
 */

type Location = z.infer<typeof LocationSchema>;

const WEEKS = 12;
/** sla.overdue's page size: a larger backlog is shown as "200 or more" */
const OVERDUE_LIMIT = 200;

export async function homePage(c: CC): Promise<Response> {
  rememberTenant(c, c.var.access.tenantId);
  const weeks = lastMondays(new Date(), WEEKS);
  const range = { dateFrom: weeks[0]!, dateTo: new Date().toISOString().slice(0, 10) };
  const locationId = c.req.query("location") || undefined;
  const [tenant, locations, reviews, responses, funnel, overdue] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } }),
    callOperation<z.infer<typeof ReviewAnalyticsSchema>>(c, reviewAnalyticsOperation, {
      query: { ...range, interval: "week", locationId },
    }),
    callOperation<z.infer<typeof ResponseAnalyticsSchema>>(c, responseAnalyticsOperation, {
      query: { ...range, locationId },
    }),
    callOperation<z.infer<typeof FunnelSchema>>(c, funnelAnalyticsOperation, { query: { ...range, locationId } }),
    callOperation<z.infer<typeof OverdueReviewSchema>[]>(c, listOverdueResponsesOperation, {
      query: { limit: String(OVERDUE_LIMIT) },
    }),
  ]);
  const names = new Map(locations.data.map((l) => [l.id, l.name]));
  const location = locationId ? locations.data.find((l) => l.id === locationId) : undefined;
  const late = locationId ? overdue.filter((r) => r.locationId === locationId) : overdue;
  const lateCount = (n: number) => (overdue.length >= OVERDUE_LIMIT ? `${n} or more` : String(n));
  const byWeek = new Map(reviews.series.map((s) => [s.period, s]));
  const trend = weeks.map((period) => ({
    period,
    count: byWeek.get(period)?.count ?? 0,
    averageRating: byWeek.get(period)?.averageRating ?? null,
  }));
  const t = reviews.totals;
  const r = responses.totals;
  const f = funnel.totals;
  const respByLocation = new Map(responses.byLocation.map((x) => [x.locationId, x]));
  const lateByLocation = new Map<string, number>();
  for (const x of overdue) lateByLocation.set(x.locationId, (lateByLocation.get(x.locationId) ?? 0) + 1);
  const scope = location ? location.name : "All locations";
  return page(
    c,
    { title: "Home", section: "home", tenant },
    <>
      <h1>{tenant.name}</h1>
      <form method="get" class="filters" aria-label="Choose a location">
        <div>
          <label for="location">Location</label>
          <select id="location" name="location">
            <option value="">All locations</option>
            {locations.data.map((l) => (
              <option value={l.id} selected={l.id === locationId}>
                {l.name}
                {l.city ? `, ${l.city}` : ""}
              </option>
            ))}
          </select>
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Show
          </button>
        </div>
      </form>
      <h2>
        {scope}: the last {WEEKS} weeks
      </h2>
      <dl class="stats">
        <div class="stat">
          <dt>Average rating</dt>
          <dd>
            {t.averageRating === null ? "none yet" : t.averageRating.toFixed(2)}
            {t.averageRating !== null && (
              <small>
                <Stars rating={t.averageRating} />
              </small>
            )}
          </dd>
        </div>
        <div class="stat">
          <dt>Reviews</dt>
          <dd>{t.count}</dd>
        </div>
        <div class="stat">
          <dt>Response rate</dt>
          <dd>
            {pct(r.responseRate)}
            <small>
              {r.responded} of {r.reviews} answered
            </small>
          </dd>
        </div>
        <div class="stat">
          <dt>Median response time</dt>
          <dd>{minutesText(r.medianFirstResponseMinutes)}</dd>
        </div>
        <div class={late.length ? "stat bad" : "stat"}>
          <dt>Past their reply SLA</dt>
          <dd>
            {lateCount(late.length)}
            <small>
              <a href={tenantHref(c, "/inbox")}>Open the inbox</a>
            </small>
          </dd>
        </div>
      </dl>
      <section class="card" aria-labelledby="trend">
        <h2 id="trend">Reviews and rating per week</h2>
        <TrendChart weeks={trend} id="trend-chart" />
      </section>
      <section class="card" aria-labelledby="funnel">
        <h2 id="funnel">Review requests</h2>
        <p class="muted">Requests created in these weeks, and how far they went.</p>
        <FunnelChart
          id="funnel-chart"
          steps={[
            { label: "Sent", value: f.sent },
            { label: "Clicked", value: f.clicked },
            { label: "Reviewed", value: f.converted },
          ]}
        />
      </section>
      {late.length > 0 && (
        <section class="card" aria-labelledby="late">
          <h2 id="late">Reviews waiting past their reply SLA</h2>
          <ul class="items">
            {late.slice(0, 5).map((x) => (
              <li>
                <div class="item-head">
                  <a href={tenantHref(c, `/inbox/${encodeURIComponent(x.id)}?type=review`)}>
                    {x.authorName ?? "A reviewer"} on {siteName(x.siteType)}
                  </a>
                  <Stars rating={x.rating} />
                </div>
                <ul class="meta">
                  <li>{names.get(x.locationId) ?? "a location"}</li>
                  <li>
                    Reply was due <When iso={x.sla.dueAt} />
                  </li>
                </ul>
              </li>
            ))}
          </ul>
        </section>
      )}
      {!locationId && reviews.byLocation.length > 0 && (
        <section class="card" aria-labelledby="locations">
          <h2 id="locations">By location</h2>
          <ul class="items">
            {reviews.byLocation.map((x) => {
              const resp = respByLocation.get(x.locationId);
              return (
                <li>
                  <div class="item-head">
                    <a href={`?location=${encodeURIComponent(x.locationId)}`}>
                      {names.get(x.locationId) ?? "A location"}
                    </a>
                    <Stars rating={x.averageRating} />
                  </div>
                  <ul class="meta">
                    <li>
                      {x.count} review{x.count === 1 ? "" : "s"}
                    </li>
                    <li>average {x.averageRating === null ? "none" : x.averageRating.toFixed(2)}</li>
                    <li>answered {pct(resp?.responseRate ?? null)}</li>
                    <li>median reply {minutesText(resp?.medianFirstResponseMinutes ?? null)}</li>
                    <li>{lateCount(lateByLocation.get(x.locationId) ?? 0)} past SLA</li>
                  </ul>
                </li>
              );
            })}
          </ul>
        </section>
      )}
    </>,
  );
}

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { DIGEST_FREQUENCIES, SITE_TYPES } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import {
  createAlertSubscriptionOperation,
  deleteAlertSubscriptionOperation,
  getAlertSubscriptionOperation,
  listAlertSubscriptionSendsOperation,
  listAlertSubscriptionsOperation,
  updateAlertSubscriptionOperation,
} from "../../alerts/operations";
import { type AlertSendSchema, type AlertSubscriptionSchema, NOTHING_TO_DELIVER } from "../../alerts/schemas";
import { listUsersOperation } from "../../users/operations";
import type { TenantUserDto } from "../../users/schemas";
import { siteName, tenantHref, tenantOf, When } from "../atoms";
import {
  blankToNull,
  blankToUndefined,
  numberOrNull,
  numberOrUndefined,
  phrasesOf,
  ticked,
  withLabels,
} from "../form-values";
import { act, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import {
  ButtonForm,
  FormCard,
  ListPager,
  type Location,
  LocationSelect,
  listPage,
  locationsOf,
  placeName,
  StateTag,
  TimeZoneSelect,
} from "../places";

/*
 * Alerts (docs/console.md, issue #46 item 3): emails about new reviews as they arrive and daily or weekly
 * digests, as GET /v1/alert-subscriptions lists them: every role sees and manages its own; managers and up
 * also everyone's, and set alerts up for others (the service's rule, `alertCallerFor`; another person's
 * subscription is a 404 to the rest). A subscription's page shows what went out (GET
 * /v1/alert-subscriptions/{id}/sends, newest first). Create, change and delete are POST, PATCH and DELETE
 * /v1/alert-subscriptions, which no role middleware guards: the service decides. Each read and form calls the
 * REST operation (callOperation).
 */

type Subscription = z.infer<typeof AlertSubscriptionSchema>;
type Send = z.infer<typeof AlertSendSchema>;
type Person = { id: string; name: string | null; email: string };

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const hourText = (h: number) => `${String(h).padStart(2, "0")}:00`;
const LABELS = {
  userId: "Who",
  locationId: "Location",
  instantEmail: "Email each new review",
  maxRating: "Only ratings at or below",
  siteTypes: "Sites",
  keywords: "Keywords",
  digestFrequency: "Digest",
  digestHour: "Digest hour",
  digestWeekday: "Digest day",
  timeZone: "Time zone",
};

/** the API's "turn on instantEmail, a webhookId or a digest", in the form's words */
const MESSAGES = { [NOTHING_TO_DELIVER.message]: "tick “Email each new review” or choose a digest" };

const byId = (c: CC) => ({ params: { id: subscriptionId(c) } });
const whoName = (people: Person[], id: string, me: string) => {
  if (id === me) return "You";
  const p = people.find((u) => u.id === id);
  return p ? (p.name ? `${p.name} (${p.email})` : p.email) : "A former team member";
};

function instantText(s: Subscription): string {
  if (!s.instantEmail)
    return s.instantUnsubscribedAt
      ? "Off (stopped with the email's unsubscribe link)"
      : s.webhookId
        ? "Webhook only"
        : "Off";
  const filters = [
    s.maxRating ? `ratings ${s.maxRating}★ or lower` : "every rating",
    s.siteTypes.length ? s.siteTypes.map(siteName).join(", ") : null,
    s.keywords.length ? `mentioning ${s.keywords.join(", ")}` : null,
  ].filter(Boolean);
  return `On: ${filters.join("; ")}`;
}

function digestText(s: Subscription): string {
  if (s.digestFrequency === "none")
    return s.digestUnsubscribedAt ? "None (stopped with the digest's unsubscribe link)" : "None";
  const day = s.digestFrequency === "weekly" ? ` on ${WEEKDAYS[s.digestWeekday - 1]}s` : "";
  return `${s.digestFrequency === "daily" ? "Daily" : "Weekly"}${day} at ${hourText(s.digestHour)} (${s.timeZone})`;
}

/** The subscription's fields; `people` only for managers (whom to alert). */
function AlertFields(props: { p: string; s?: Subscription; locations: Location[]; people?: Person[]; me: string }) {
  const { p, s } = props;
  return (
    <>
      {props.people && !s && (
        <>
          <label for={`${p}-who`}>Who</label>
          <select id={`${p}-who`} name="userId">
            {props.people.map((u) => (
              <option value={u.id} selected={u.id === props.me}>
                {u.id === props.me ? `You (${u.email})` : `${u.name || u.email} (${u.email})`}
              </option>
            ))}
          </select>
        </>
      )}
      <label for={`${p}-location`}>Location</label>
      <LocationSelect id={`${p}-location`} locations={props.locations} selected={s?.locationId} none="Every location" />
      <fieldset>
        <legend>As reviews arrive</legend>
        <label class="check" for={`${p}-instant`}>
          <input
            id={`${p}-instant`}
            type="checkbox"
            name="instantEmail"
            value="true"
            checked={s ? s.instantEmail : true}
          />
          <span>Email each new review</span>
        </label>
        <label for={`${p}-max`}>Only ratings at or below</label>
        <select id={`${p}-max`} name="maxRating">
          <option value="">Any rating</option>
          {[1, 2, 3, 4].map((n) => (
            <option value={String(n)} selected={n === s?.maxRating}>
              {n}★{n > 1 ? " or lower" : ""}
            </option>
          ))}
        </select>
        <fieldset class="plain">
          <legend>Sites (none ticked: every site)</legend>
          {SITE_TYPES.map((site) => (
            <label class="check" for={`${p}-site-${site}`}>
              <input
                id={`${p}-site-${site}`}
                type="checkbox"
                name="siteTypes"
                value={site}
                checked={s?.siteTypes.includes(site)}
              />
              <span>{siteName(site)}</span>
            </label>
          ))}
        </fieldset>
        <label for={`${p}-keywords`}>Keywords (optional)</label>
        <input
          id={`${p}-keywords`}
          name="keywords"
          type="text"
          value={s?.keywords.join(", ") ?? ""}
          aria-describedby={`${p}-keywords-help`}
        />
        <p id={`${p}-keywords-help`} class="muted small">
          Separated by commas; only reviews mentioning one of them. Empty: every review.
        </p>
      </fieldset>
      <fieldset>
        <legend>Digest</legend>
        <label for={`${p}-digest`}>Digest</label>
        <select id={`${p}-digest`} name="digestFrequency">
          {DIGEST_FREQUENCIES.map((f) => (
            <option value={f} selected={f === (s?.digestFrequency ?? "none")}>
              {f === "none" ? "No digest" : f === "daily" ? "Daily" : "Weekly"}
            </option>
          ))}
        </select>
        <label for={`${p}-hour`}>Digest hour</label>
        <select id={`${p}-hour`} name="digestHour">
          {Array.from({ length: 24 }, (_, h) => (
            <option value={String(h)} selected={h === (s?.digestHour ?? 8)}>
              {hourText(h)}
            </option>
          ))}
        </select>
        <label for={`${p}-day`}>Digest day (weekly)</label>
        <select id={`${p}-day`} name="digestWeekday">
          {WEEKDAYS.map((d, i) => (
            <option value={String(i + 1)} selected={i + 1 === (s?.digestWeekday ?? 1)}>
              {d}
            </option>
          ))}
        </select>
        <label for={`${p}-zone`}>Time zone</label>
        <TimeZoneSelect
          id={`${p}-zone`}
          name="timeZone"
          selected={s?.timeZone}
          blank={s ? undefined : "The location's"}
        />
      </fieldset>
    </>
  );
}

/** The people managers may alert (GET /v1/users: any role reads it), active ones only. */
async function peopleOf(c: CC): Promise<Person[]> {
  const list = await callOperation<Page<TenantUserDto>>(c, listUsersOperation, { query: { limit: "200" } });
  return list.data.filter((u) => u.isActive);
}

export async function alertsPage(c: CC): Promise<Response> {
  const manager = can(c, "manager");
  const me = c.var.consoleSession!.principal.userId;
  const [{ cursor, tenant, list, csrf, locations, base }, people] = await Promise.all([
    listPage(c, "/alerts", (cursor) =>
      callOperation<Page<Subscription>>(c, listAlertSubscriptionsOperation, { query: { cursor, limit: "50" } }),
    ),
    peopleOf(c),
  ]);
  return page(
    c,
    { title: "Alerts", section: "alerts", tenant },
    <>
      <h1>Alerts</h1>
      <p class="muted">
        Emails about new reviews as they arrive, and a daily or weekly digest.{" "}
        {manager ? "You see everyone's here and may set them up for others." : "You see and change your own."}
      </p>
      {list.total === 0 ? (
        <p class="card">No alert yet. Set one up below, e.g. an email for every review of 2★ or lower.</p>
      ) : (
        <table class="rows">
          <caption>Alerts ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Location</th>
              <th scope="col">As reviews arrive</th>
              <th scope="col">Digest</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((s) => (
              <tr>
                <th scope="row" data-label="Who">
                  <a href={`${base}/${encodeURIComponent(s.id)}`}>{whoName(people, s.userId, me)}</a>
                </th>
                <td data-label="Location">{placeName(locations, s.locationId)}</td>
                <td data-label="As reviews arrive">{instantText(s)}</td>
                <td data-label="Digest">{digestText(s)}</td>
                <td data-label="State">
                  <StateTag on={s.isActive} yes="On" no="Paused" off="warn" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListPager base={base} list={list} cursor={cursor} />
      <FormCard id="make" title="Set up an alert" action={base} csrf={csrf} button="Set up the alert">
        <AlertFields p="new" locations={locations} people={manager ? people : undefined} me={me} />
      </FormCard>
    </>,
  );
}

const subscriptionId = (c: CC) => c.req.param("subscriptionId") ?? "";

function SendRow({ send, c }: { send: Send; c: CC }) {
  const reviewId = typeof send.summary.reviewId === "string" ? send.summary.reviewId : null;
  return (
    <tr>
      <th scope="row" data-label="When">
        <When iso={send.sentAt ?? send.createdAt} />
      </th>
      <td data-label="What">
        {send.kind === "instant" ? (
          reviewId ? (
            <a href={tenantHref(c, `/reviews/${encodeURIComponent(reviewId)}`)}>A new review</a>
          ) : (
            "A new review"
          )
        ) : (
          <>
            Digest{" "}
            {send.periodStart && (
              <span class="muted small">
                from <When iso={send.periodStart} />
              </span>
            )}
          </>
        )}
      </td>
      <td data-label="State">
        <span class={send.status === "sent" ? "status ok" : send.status === "failed" ? "status bad" : "status"}>
          {send.status}
        </span>
        {send.error && <p class="muted small">{send.error}</p>}
      </td>
    </tr>
  );
}

export async function alertPage(c: CC): Promise<Response> {
  const s = await callOperation<Subscription>(c, getAlertSubscriptionOperation, byId(c));
  const me = c.var.consoleSession!.principal.userId;
  const [tenant, csrf, locations, people, sends] = await Promise.all([
    tenantOf(c),
    csrfOf(c),
    locationsOf(c),
    peopleOf(c),
    callOperation<Page<Send>>(c, listAlertSubscriptionSendsOperation, {
      params: { id: s.id },
      query: { limit: "20" },
    }),
  ]);
  const base = tenantHref(c, `/alerts/${encodeURIComponent(s.id)}`);
  const who = whoName(people, s.userId, me);
  return page(
    c,
    { title: "Alert", section: "alerts", tenant },
    <>
      <p class="small">
        <a href={tenantHref(c, "/alerts")}>All alerts</a>
      </p>
      <h1>Alert for {who === "You" ? "you" : who}</h1>
      <dl class="facts">
        <dt>Location</dt>
        <dd>{placeName(locations, s.locationId)}</dd>
        <dt>As reviews arrive</dt>
        <dd>{instantText(s)}</dd>
        <dt>Digest</dt>
        <dd>{digestText(s)}</dd>
        {s.nextDigestAt && (
          <>
            <dt>Next digest</dt>
            <dd>
              <When iso={s.nextDigestAt} />
            </dd>
          </>
        )}
        {s.webhookId && (
          <>
            <dt>Webhook</dt>
            <dd>Each alert is also posted to a webhook (set over the API).</dd>
          </>
        )}
      </dl>
      <table class="rows">
        <caption>
          What went out (latest {sends.data.length} of {sends.total})
        </caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {sends.data.map((send) => (
            <SendRow send={send} c={c} />
          ))}
        </tbody>
      </table>
      {sends.total === 0 && <p class="card">Nothing has gone out yet: the first new review that matches sends one.</p>}
      <FormCard
        id="edit"
        title="Change it"
        action={base}
        csrf={csrf}
        button="Save the alert"
        after={<ButtonForm action={`${base}/delete`} csrf={csrf} label="Delete the alert" danger />}
      >
        <AlertFields p="edit" s={s} locations={locations} me={me} />
        <label class="check" for="edit-on">
          <input id="edit-on" type="checkbox" name="isActive" value="true" checked={s.isActive} />
          <span>On (untick to pause it)</span>
        </label>
      </FormCard>
    </>,
  );
}

/** The form as the subscription's REST body takes it (webhookId is left as it is: set over the API). */
function alertBody(form: Awaited<ReturnType<typeof formOf>>) {
  return {
    locationId: blankToNull(form.one("locationId")),
    instantEmail: ticked(form.one("instantEmail")),
    maxRating: numberOrNull(form.one("maxRating")),
    siteTypes: form.all("siteTypes"),
    keywords: phrasesOf(form.one("keywords")),
    digestFrequency: blankToUndefined(form.one("digestFrequency")),
    digestHour: numberOrUndefined(form.one("digestHour")),
    digestWeekday: numberOrUndefined(form.one("digestWeekday")),
    timeZone: blankToUndefined(form.one("timeZone")),
  };
}

/** REST: POST /v1/alert-subscriptions (any role for itself; managers for others too). */
export async function createAlertSubmit(c: CC): Promise<Response> {
  const list = tenantHref(c, "/alerts");
  return act(c, list, () =>
    withLabels(
      LABELS,
      async () => {
        const form = await formOf(c);
        const made = await callOperation<Subscription>(c, createAlertSubscriptionOperation, {
          body: { ...alertBody(form), userId: blankToUndefined(form.one("userId")) },
        });
        return redirectTo(c, list, {
          kind: "notice",
          text: `The alert is set up. As reviews arrive: ${instantText(made)}. Digest: ${digestText(made)}.`,
        });
      },
      MESSAGES,
    ),
  );
}

/** REST: PATCH /v1/alert-subscriptions/{id}. */
export async function updateAlertSubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, `/alerts/${encodeURIComponent(subscriptionId(c))}`);
  return act(c, back, () =>
    withLabels(
      LABELS,
      async () => {
        // another person's or another tenant's alert is a 404 before anything in the form is judged
        await callOperation(c, getAlertSubscriptionOperation, byId(c));
        const form = await formOf(c);
        await callOperation(c, updateAlertSubscriptionOperation, {
          ...byId(c),
          body: { ...alertBody(form), isActive: ticked(form.one("isActive")) },
        });
        return redirectTo(c, back, { kind: "notice", text: "The alert is saved." });
      },
      MESSAGES,
    ),
  );
}

/** REST: DELETE /v1/alert-subscriptions/{id}. */
export async function deleteAlertSubmit(c: CC): Promise<Response> {
  const list = tenantHref(c, "/alerts");
  return act(c, list, async () => {
    await callOperation(c, deleteAlertSubscriptionOperation, byId(c));
    return redirectTo(c, list, { kind: "notice", text: "The alert is deleted: no more emails from it." });
  });
}

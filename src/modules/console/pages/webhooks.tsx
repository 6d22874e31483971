/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { WEBHOOK_DELIVERY_STATUSES } from "../../../db/schema";
import { EVENT_TYPES } from "../../../lib/events";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import {
  createWebhookOperation,
  deleteWebhookOperation,
  getWebhookOperation,
  listWebhookDeliveriesOperation,
  listWebhooksOperation,
  redeliverWebhookDeliveryOperation,
  rotateWebhookSecretOperation,
  testWebhookOperation,
  updateWebhookOperation,
} from "../../outgoing-webhooks/operations";
import type {
  WebhookDeliverySchema,
  WebhookSecretSchema,
  WebhookSubscriptionSchema,
  WebhookWithSecretSchema,
} from "../../outgoing-webhooks/schemas";
import { Pager, ShownOnce, tenantHref, tenantOf, When } from "../atoms";
import { act, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf, type Flash } from "../layout";

/*
 * Outgoing webhooks (docs/console.md, issue #46 item 7): the endpoints this tenant's events go to (GET
 * /v1/webhooks, every role reads), one endpoint with its recent deliveries and their retries (GET
 * /v1/webhooks/{id} and /deliveries). A tenant admin subscribes an endpoint (POST /v1/webhooks: the signing
 * secret is shown once, in the answer to that post, like a new API key), edits, pauses or re-enables it (PATCH),
 * sends a test (POST /test), replaces the secret (POST /rotate-secret, shown once too), redelivers a delivery
 * (POST /deliveries/{id}/redeliver) and deletes it (DELETE). Each page and form calls the REST operation itself
 * (callOperation: REST's role check and schemas).
 */

type Webhook = z.infer<typeof WebhookSubscriptionSchema>;
type Delivery = z.infer<typeof WebhookDeliverySchema>;

const DELIVERY_LABEL: Record<Delivery["status"], string> = {
  pending: "Retrying",
  succeeded: "Delivered",
  failed: "Failed",
  cancelled: "Cancelled",
};
const DELIVERY_TONE: Record<Delivery["status"], string> = {
  pending: "status warn",
  succeeded: "status ok",
  failed: "status bad",
  cancelled: "status",
};

function stateOf(h: Webhook): { text: string; tone: string } {
  if (!h.isActive)
    return h.disabledAt
      ? { text: "Disabled after failing for a day", tone: "status bad" }
      : { text: "Paused", tone: "status" };
  if (h.failingSince) return { text: `Failing (${h.consecutiveFailures} in a row)`, tone: "status warn" };
  return { text: "Active", tone: "status ok" };
}

const eventsText = (events: string[]) => (events.includes("*") ? "every event" : events.join(", "));

/** The event checkboxes: "every event" or the ones ticked. */
function EventChoice({ chosen }: { chosen: string[] }) {
  return (
    <fieldset>
      <legend>Events it receives</legend>
      <label class="check" for="event-all">
        <input id="event-all" type="checkbox" name="events" value="*" checked={chosen.includes("*")} />
        <span>Every event (then leave the others unticked)</span>
      </label>
      {EVENT_TYPES.map((e) => (
        <label class="check" for={`event-${e}`}>
          <input id={`event-${e}`} type="checkbox" name="events" value={e} checked={chosen.includes(e)} />
          <span>
            <code>{e}</code>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function SubscribeForm(props: { action: string; csrf: string }) {
  return (
    <section class="card" aria-labelledby="subscribe">
      <h2 id="subscribe">Add an endpoint</h2>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for="hook-url">URL (https)</label>
        <input id="hook-url" name="url" type="url" required maxlength={2048} autocomplete="off" />
        <label for="hook-description">Description (optional)</label>
        <input id="hook-description" name="description" type="text" maxlength={500} autocomplete="off" />
        <EventChoice chosen={["review.created", "review.negative"]} />
        <p class="muted small">
          Each delivery is a POST signed with the endpoint's secret (Standard Webhooks headers). A failed delivery is
          retried 8 times over about a day; an endpoint that fails for a whole day is disabled.
        </p>
        <div class="actions">
          <button type="submit">Add the endpoint</button>
        </div>
      </form>
    </section>
  );
}

const hookHref = (c: CC, id = "", rest = "") =>
  tenantHref(c, `/webhooks${id ? `/${encodeURIComponent(id)}` : ""}${rest}`);

/** The signing secret just made, shown once. */
const NewSecret = ({ secret }: { secret: string }) => (
  <ShownOnce
    id="new-secret"
    title="The endpoint's signing secret"
    label="Signing secret"
    value={secret}
    copy="Copy the secret"
    copied="Secret copied to the clipboard."
  >
    <p class="muted small">Your endpoint checks each delivery's signature with it.</p>
  </ShownOnce>
);

/** The list of endpoints; `secret` is the one the post just made, shown this once. */
async function listPage(c: CC, secret?: string, flash?: Flash): Promise<Response> {
  const query = { cursor: c.req.query("cursor") || undefined };
  const [tenant, list, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Webhook>>(c, listWebhooksOperation, { query: { ...query, limit: "50" } }),
    csrfOf(c),
  ]);
  const admin = can(c, "tenant_admin");
  return page(
    c,
    { title: "Webhooks", section: "webhooks", tenant, flash },
    <>
      <h1>Webhooks</h1>
      {secret && <NewSecret secret={secret} />}
      <p class="muted">
        An endpoint of your own systems receives this business's events as they happen: new reviews, published replies,
        sent requests.
      </p>
      {list.data.length === 0 ? (
        <p class="card">
          No endpoint yet.{" "}
          {admin ? "Add one below with the events it should receive." : "An admin of this business adds them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Endpoints ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Added</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((h) => {
              const state = stateOf(h);
              return (
                <tr>
                  <th scope="row" data-label="URL">
                    <a href={hookHref(c, h.id)}>{h.url}</a>
                    {h.description && <p class="muted small">{h.description}</p>}
                  </th>
                  <td data-label="Events">{eventsText(h.events)}</td>
                  <td data-label="State">
                    <span class={state.tone}>{state.text}</span>
                  </td>
                  <td data-label="Added">
                    <When iso={h.createdAt} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pager
        base={hookHref(c)}
        params={{}}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
      {admin && <SubscribeForm action={hookHref(c)} csrf={csrf} />}
    </>,
  );
}

export const webhooksPage = (c: CC) => listPage(c);

function DeliveryRow(props: { d: Delivery; redeliver: string | null; csrf: string }) {
  const { d } = props;
  return (
    <tr>
      <th scope="row" data-label="When">
        <When iso={d.createdAt} />
      </th>
      <td data-label="Event">
        <code>{d.eventType}</code>
        {d.redeliveryOf && <span class="muted small"> (sent again)</span>}
      </td>
      <td data-label="Status">
        <span class={DELIVERY_TONE[d.status]}>{DELIVERY_LABEL[d.status]}</span>
      </td>
      <td data-label="Attempts">{d.attempts}</td>
      <td data-label="Last answer">
        {d.responseStatus !== null ? `HTTP ${d.responseStatus}` : d.attempts === 0 ? "not tried yet" : "no answer"}
        {d.latencyMs !== null && <span class="muted small"> in {d.latencyMs} ms</span>}
        {d.error && <p class="small">{d.error}</p>}
      </td>
      <td data-label="Next try">
        {d.nextAttemptAt ? <When iso={d.nextAttemptAt} /> : <span class="muted">none</span>}
      </td>
      {props.redeliver !== null && (
        <td data-label="Send again">
          <form method="post" action={props.redeliver}>
            <Csrf token={props.csrf} />
            <button type="submit" class="secondary" aria-label={`Send the ${d.eventType} delivery again`}>
              Send again
            </button>
          </form>
        </td>
      )}
    </tr>
  );
}

function EditForm(props: { h: Webhook; action: string; csrf: string }) {
  const { h } = props;
  return (
    <section class="card" aria-labelledby="edit">
      <h2 id="edit">Change the endpoint</h2>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for="edit-url">URL (https)</label>
        <input id="edit-url" name="url" type="url" required maxlength={2048} value={h.url} autocomplete="off" />
        <label for="edit-description">Description (optional)</label>
        <input
          id="edit-description"
          name="description"
          type="text"
          maxlength={500}
          value={h.description ?? ""}
          autocomplete="off"
        />
        <EventChoice chosen={h.events} />
        <label class="check" for="edit-active">
          <input id="edit-active" type="checkbox" name="isActive" value="true" checked={h.isActive} />
          <span>Active (ticking it re-enables a disabled endpoint and starts its failure count afresh)</span>
        </label>
        <div class="actions">
          <button type="submit">Save the changes</button>
        </div>
      </form>
    </section>
  );
}

/** One endpoint: its facts, its recent deliveries (keyset pages, by status), and the admin's forms. */
async function onePage(c: CC, secret?: string, flash?: Flash): Promise<Response> {
  const id = c.req.param("webhookId") ?? "";
  const query = { status: c.req.query("status") || undefined, cursor: c.req.query("cursor") || undefined };
  const [tenant, h, deliveries, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Webhook>(c, getWebhookOperation, { params: { id } }),
    callOperation<Page<Delivery>>(c, listWebhookDeliveriesOperation, {
      params: { id },
      query: { ...query, limit: "25" },
    }),
    csrfOf(c),
  ]);
  const admin = can(c, "tenant_admin");
  const base = hookHref(c, h.id);
  const state = stateOf(h);
  const post = (rest: string, label: string, o: { danger?: boolean; secondary?: boolean } = {}) => (
    <form method="post" action={`${base}${rest}`}>
      <Csrf token={csrf} />
      <button type="submit" class={o.danger ? "danger" : o.secondary ? "secondary" : undefined}>
        {label}
      </button>
    </form>
  );
  return page(
    c,
    { title: "Webhook endpoint", section: "webhooks", tenant, flash },
    <>
      <p>
        <a href={hookHref(c)}>All endpoints</a>
      </p>
      <h1>Webhook endpoint</h1>
      {secret && <NewSecret secret={secret} />}
      <dl class="facts">
        <dt>URL</dt>
        <dd>{h.url}</dd>
        {h.description && (
          <>
            <dt>Description</dt>
            <dd>{h.description}</dd>
          </>
        )}
        <dt>Events</dt>
        <dd>{eventsText(h.events)}</dd>
        <dt>State</dt>
        <dd>
          <span class={state.tone}>{state.text}</span>
          {h.failingSince && (
            <>
              {" "}
              since <When iso={h.failingSince} />
            </>
          )}
          {h.disabledReason && <p class="small">{h.disabledReason}</p>}
        </dd>
        <dt>Added</dt>
        <dd>
          <When iso={h.createdAt} />
        </dd>
      </dl>
      {admin && (
        <div class="actions">
          {post("/test", "Send a test delivery")}
          {post("/rotate-secret", "Replace the signing secret", { secondary: true })}
          {post("/delete", "Delete the endpoint", { danger: true })}
        </div>
      )}
      <h2>Recent deliveries</h2>
      <form method="get" class="filters">
        <div>
          <label for="status">Status</label>
          <select id="status" name="status">
            <option value="">Any</option>
            {WEBHOOK_DELIVERY_STATUSES.map((s) => (
              <option value={s} selected={query.status === s}>
                {DELIVERY_LABEL[s]}
              </option>
            ))}
          </select>
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Filter
          </button>
        </div>
      </form>
      {deliveries.data.length === 0 ? (
        <p class="card">
          {query.status
            ? "No delivery with this status."
            : "Nothing sent yet. Send a test delivery to check the endpoint answers."}
        </p>
      ) : (
        <table class="rows">
          <caption>Deliveries ({deliveries.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Next try</th>
              {admin && <th scope="col">Send again</th>}
            </tr>
          </thead>
          <tbody>
            {deliveries.data.map((d) => (
              <DeliveryRow
                d={d}
                csrf={csrf}
                redeliver={admin ? `${base}/deliveries/${encodeURIComponent(d.id)}/redeliver` : null}
              />
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={base}
        params={{ status: query.status }}
        endCursor={deliveries.pageInfo.endCursor}
        hasNext={deliveries.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
      {admin && <EditForm h={h} action={`${base}/edit`} csrf={csrf} />}
    </>,
  );
}

export const webhookPage = (c: CC) => onePage(c);

// ---- the forms: each calls its REST operation (tenant_admin, checked there before anything else)

const hookId = (c: CC) => c.req.param("webhookId") ?? "";
const hookParams = (c: CC) => ({ params: { id: hookId(c) } });

/** The form's fields as POST /v1/webhooks and PATCH read them. */
async function webhookFields(c: CC) {
  const form = await formOf(c);
  return {
    url: form.one("url"),
    description: form.one("description").trim() || null,
    events: form.all("events"),
    isActive: form.one("isActive") === "true",
  };
}

/** REST: POST /v1/webhooks. The answer is the list with the secret (shown once), not a redirect. */
export async function subscribeSubmit(c: CC): Promise<Response> {
  return act(c, hookHref(c), async () => {
    const f = await webhookFields(c);
    const created = await callOperation<z.infer<typeof WebhookWithSecretSchema>>(c, createWebhookOperation, {
      body: { url: f.url, description: f.description, events: f.events },
    });
    return listPage(c, created.secret, { kind: "notice", text: `The endpoint ${created.url} is added.` });
  });
}

/** REST: PATCH /v1/webhooks/{id} (url, description, events, isActive). */
export async function editWebhookSubmit(c: CC): Promise<Response> {
  const back = hookHref(c, hookId(c));
  return act(c, back, async () => {
    const after = await callOperation<Webhook>(c, updateWebhookOperation, {
      ...hookParams(c),
      body: await webhookFields(c),
    });
    return redirectTo(c, back, {
      kind: "notice",
      text: after.isActive ? "The endpoint is saved and active." : "The endpoint is saved and paused.",
    });
  });
}

/** REST: POST /v1/webhooks/{id}/test: one signed webhook.test, attempted now; the page says how it went. */
export async function testWebhookSubmit(c: CC): Promise<Response> {
  const back = hookHref(c, hookId(c));
  return act(c, back, async () => {
    const d = await callOperation<Delivery>(c, testWebhookOperation, hookParams(c));
    const answer = d.responseStatus !== null ? `HTTP ${d.responseStatus}` : (d.error ?? "no answer");
    return redirectTo(
      c,
      back,
      d.status === "succeeded"
        ? { kind: "notice", text: `The test delivery arrived: the endpoint answered ${answer} in ${d.latencyMs} ms.` }
        : { kind: "error", text: `The test delivery failed: ${answer}. It is not retried.` },
    );
  });
}

/** REST: POST /v1/webhooks/{id}/rotate-secret. The answer is the endpoint's page with the new secret, once. */
export async function rotateSecretSubmit(c: CC): Promise<Response> {
  return act(c, hookHref(c, hookId(c)), async () => {
    const { secret } = await callOperation<z.infer<typeof WebhookSecretSchema>>(
      c,
      rotateWebhookSecretOperation,
      hookParams(c),
    );
    return onePage(c, secret, {
      kind: "notice",
      text: "The secret is replaced: deliveries from now on are signed with the new one.",
    });
  });
}

/** REST: DELETE /v1/webhooks/{id}. */
export async function deleteWebhookSubmit(c: CC): Promise<Response> {
  return act(c, hookHref(c, hookId(c)), async () => {
    const h = await callOperation<Webhook>(c, getWebhookOperation, hookParams(c));
    await callOperation(c, deleteWebhookOperation, hookParams(c));
    return redirectTo(c, hookHref(c), { kind: "notice", text: `The endpoint ${h.url} and its log are deleted.` });
  });
}

/** REST: POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver (409 while the endpoint is disabled). */
export async function redeliverSubmit(c: CC): Promise<Response> {
  const back = hookHref(c, hookId(c));
  return act(c, back, async () => {
    await callOperation(c, redeliverWebhookDeliveryOperation, {
      params: { id: hookId(c), deliveryId: c.req.param("deliveryId") ?? "" },
    });
    return redirectTo(c, back, {
      kind: "notice",
      text: "The delivery is queued again with the same webhook-id; it shows below as a new row.",
    });
  });
}

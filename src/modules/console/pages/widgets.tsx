/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { SITE_TYPES, WIDGET_ORDERS } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canManage } from "../../../middleware/tenant";
import { siteLabel } from "../../widgets/footer";
import {
  createWidgetOperation,
  deleteWidgetOperation,
  getWidgetOperation,
  listWidgetsOperation,
  updateWidgetOperation,
} from "../../widgets/operations";
import type { WidgetSchema } from "../../widgets/schemas";
import { tenantHref, tenantOf } from "../atoms";
import { blankToNull, numberOrUndefined, ticked, withLabels } from "../form-values";
import { act, asRest, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
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
} from "../places";

/*
 * Widgets (docs/console.md, issue #46 item 3): review showcases for the tenant's website, as GET /v1/widgets
 * lists them (every role reads them). A widget's page shows the embed code to copy (a script, or an iframe for
 * sites that allow no script) and a preview: the public widget page /w/{key} in an iframe of this origin (the
 * console's CSP allows frame-src 'self' for it; the widget page loads nothing from elsewhere). A manager
 * creates (POST), edits or pauses (PATCH) and deletes (DELETE) one. Each read and form calls its REST operation
 * (callOperation: REST's role check and schemas).
 */

type Widget = z.infer<typeof WidgetSchema>;

const LABELS = {
  name: "Name",
  locationId: "Location",
  minRating: "Ratings shown",
  sites: "Sites",
  count: "How many reviews",
  order: "Order",
};
const ORDER_TEXT: Record<string, string> = { newest: "Newest first", best: "Highest rated first" };

function WidgetFields(props: { p: string; w?: Widget; locations: Location[] }) {
  const { p, w } = props;
  return (
    <>
      <label for={`${p}-name`}>Name</label>
      <input id={`${p}-name`} name="name" type="text" required maxlength={120} value={w?.name ?? "Reviews"} />
      <label for={`${p}-location`}>Location</label>
      <LocationSelect id={`${p}-location`} locations={props.locations} selected={w?.locationId} none="Every location" />
      <label for={`${p}-rating`}>Ratings shown</label>
      <select id={`${p}-rating`} name="minRating">
        {[1, 2, 3, 4, 5].map((n) => (
          <option value={String(n)} selected={n === (w?.minRating ?? 1)}>
            {n === 1 ? "Every rating" : n === 5 ? "5★ only" : `${n}★ and up`}
          </option>
        ))}
      </select>
      <fieldset>
        <legend>Sites (none ticked: every site)</legend>
        {SITE_TYPES.map((s) => (
          <label class="check" for={`${p}-site-${s}`}>
            <input id={`${p}-site-${s}`} type="checkbox" name="sites" value={s} checked={w?.sites.includes(s)} />
            <span>{siteLabel(s)}</span>
          </label>
        ))}
      </fieldset>
      <label for={`${p}-count`}>How many reviews</label>
      <input id={`${p}-count`} name="count" type="text" inputmode="numeric" value={String(w?.count ?? 5)} />
      <label for={`${p}-order`}>Order</label>
      <select id={`${p}-order`} name="order">
        {WIDGET_ORDERS.map((o) => (
          <option value={o} selected={o === (w?.order ?? "newest")}>
            {ORDER_TEXT[o] ?? o}
          </option>
        ))}
      </select>
      <p class="muted small">The widget prints its filters under the reviews, so visitors know it is a selection.</p>
    </>
  );
}

export async function widgetsPage(c: CC): Promise<Response> {
  const manager = can(c, "manager");
  const { cursor, tenant, list, csrf, locations, base } = await listPage(c, "/widgets", (cursor) =>
    callOperation<Page<Widget>>(c, listWidgetsOperation, { query: { cursor, limit: "50" } }),
  );
  return page(
    c,
    { title: "Widgets", section: "widgets", tenant },
    <>
      <h1>Widgets</h1>
      <p class="muted">Show your reviews on your own website: make a widget, then paste its code into a page.</p>
      {list.total === 0 ? (
        <p class="card">No widget yet. {manager ? "Make one below." : "A manager of this business makes them."}</p>
      ) : (
        <table class="rows">
          <caption>Widgets ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Location</th>
              <th scope="col">Shows</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((w) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={`${base}/${encodeURIComponent(w.id)}`}>{w.name}</a>
                </th>
                <td data-label="Location">{placeName(locations, w.locationId)}</td>
                <td data-label="Shows">
                  {w.count} · {w.footer}
                </td>
                <td data-label="State">
                  <StateTag on={w.isActive} yes="Live" no="Paused" off="warn" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListPager base={base} list={list} cursor={cursor} />
      {manager && (
        <FormCard id="make" title="Make a widget" action={base} csrf={csrf} button="Make the widget">
          <WidgetFields p="new" locations={locations} />
        </FormCard>
      )}
    </>,
  );
}

const widgetId = (c: CC) => c.req.param("widgetId") ?? "";
/** the widget of the page's path, as the operations' path parameter */
const widgetParams = (c: CC) => ({ params: { id: widgetId(c) } });
const getWidget = (c: CC) => callOperation<Widget>(c, getWidgetOperation, widgetParams(c));

/** An embed code in a block to select, with a copy button (client/copy.ts). */
function Code(props: { id: string; title: string; code: string; help: string }) {
  return (
    <>
      <h3 id={`${props.id}-title`}>{props.title}</h3>
      <p class="muted small">{props.help}</p>
      <pre class="copy" id={props.id}>
        {props.code}
      </pre>
      <div class="actions">
        <button type="button" class="secondary" data-copy={props.id} data-copied={`${props.title}: copied.`} hidden>
          Copy: {props.title}
        </button>
      </div>
    </>
  );
}

export async function widgetPage(c: CC): Promise<Response> {
  const w = await getWidget(c);
  const manager = can(c, "manager");
  const [tenant, csrf, locations] = await Promise.all([tenantOf(c), csrfOf(c), locationsOf(c)]);
  const base = tenantHref(c, `/widgets/${encodeURIComponent(w.id)}`);
  return page(
    c,
    { title: w.name, section: "widgets", tenant },
    <>
      <p class="small">
        <a href={tenantHref(c, "/widgets")}>All widgets</a>
      </p>
      <h1>{w.name}</h1>
      <p>
        {placeName(locations, w.locationId)} · {w.count} reviews · {w.footer}
      </p>
      {!w.isActive && <p class="warnbox">Paused: where it is embedded, nothing shows until it is live again.</p>}
      <section class="card" aria-labelledby="embed">
        <h2 id="embed">Embed it</h2>
        <Code
          id="embed-script"
          title="Script"
          code={w.embed.script}
          help="Paste it where the reviews should appear. It draws in its own box, untouched by your page's styles."
        />
        <Code
          id="embed-iframe"
          title="Iframe"
          code={w.embed.iframe}
          help="For site builders that allow no script: the same reviews in a frame."
        />
      </section>
      {w.isActive && (
        <section class="card" aria-labelledby="preview">
          <h2 id="preview">Preview</h2>
          <p class="muted small">As visitors see it; changes show within a minute.</p>
          <iframe
            class="preview"
            src={`/w/${encodeURIComponent(w.publicKey)}`}
            title={`Preview of the widget ${w.name}`}
          />
        </section>
      )}
      {manager && (
        <FormCard
          id="edit"
          title="Change it"
          action={base}
          csrf={csrf}
          button="Save the widget"
          after={<ButtonForm action={`${base}/delete`} csrf={csrf} label="Delete the widget" danger />}
        >
          <WidgetFields p="edit" w={w} locations={locations} />
          <label class="check" for="edit-live">
            <input id="edit-live" type="checkbox" name="isActive" value="true" checked={w.isActive} />
            <span>Live (untick to pause it everywhere it is embedded)</span>
          </label>
        </FormCard>
      )}
    </>,
  );
}

const widgetBody = (form: Awaited<ReturnType<typeof formOf>>) => ({
  name: form.one("name"),
  locationId: blankToNull(form.one("locationId")),
  minRating: numberOrUndefined(form.one("minRating")),
  sites: form.all("sites"),
  count: numberOrUndefined(form.one("count")),
  order: form.one("order") || undefined,
});

/** REST: POST /v1/widgets (createWidget: manager, its body schema). */
export async function createWidgetSubmit(c: CC): Promise<Response> {
  const list = tenantHref(c, "/widgets");
  return act(c, list, () =>
    withLabels(LABELS, async () => {
      const made = await callOperation<Widget>(c, createWidgetOperation, { body: widgetBody(await formOf(c)) });
      return redirectTo(c, `${list}/${encodeURIComponent(made.id)}`, {
        kind: "notice",
        text: `“${made.name}” is made: copy its code into your website.`,
      });
    }),
  );
}

/** REST: PATCH /v1/widgets/{id} (updateWidget: manager, its body schema). */
export async function updateWidgetSubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, `/widgets/${encodeURIComponent(widgetId(c))}`);
  return act(c, back, () =>
    withLabels(LABELS, async () => {
      // REST's role check first (as its middleware runs), then another tenant's widget is a 404 before anything in
      // the form is judged
      await asRest(c, canManage);
      await getWidget(c);
      const form = await formOf(c);
      const after = await callOperation<Widget>(c, updateWidgetOperation, {
        ...widgetParams(c),
        body: { ...widgetBody(form), isActive: ticked(form.one("isActive")) },
      });
      return redirectTo(c, back, {
        kind: "notice",
        text: after.isActive
          ? `“${after.name}” is saved; websites show the change within a minute.`
          : `“${after.name}” is saved and paused.`,
      });
    }),
  );
}

/** REST: DELETE /v1/widgets/{id} (deleteWidget, manager; REST's role check before the 404 read). */
export async function deleteWidgetSubmit(c: CC): Promise<Response> {
  const list = tenantHref(c, "/widgets");
  return act(c, list, async () => {
    await asRest(c, canManage);
    const w = await getWidget(c);
    await callOperation(c, deleteWidgetOperation, { params: { id: w.id } });
    return redirectTo(c, list, {
      kind: "notice",
      text: `“${w.name}” is deleted; where it was embedded, nothing shows.`,
    });
  });
}

/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { CAMPAIGN_TYPES, MessageChannel } from "../../../db/schema";
import { tenantHref, tenantOf } from "../atoms";
import { type CC, can, page } from "../kit";

/*
 * Review requests (docs/console.md, "Review requests"; issue #46 item 1): one entry in the navigation bar,
 * "Requests", whose pages share a sub-navigation: campaigns (send them and follow their progress, with their
 * sequences), templates (the messages, with a live preview and their versions), A/B experiments and every
 * request sent (solicitations). This file is the section's hub and the pieces its pages show alike.
 */

export const REQUEST_PAGES = [
  {
    key: "campaigns",
    label: "Campaigns",
    path: "/campaigns",
    blurb: "Ask customers for reviews: create a campaign, send it, follow its progress; its drip sequence.",
  },
  {
    key: "templates",
    label: "Templates",
    path: "/templates",
    blurb: "The messages: write them with their variables, preview them, approve them; their versions.",
  },
  {
    key: "experiments",
    label: "Experiments",
    path: "/experiments",
    blurb: "A/B tests of messages within a campaign, with their results.",
  },
  {
    key: "solicitations",
    label: "Sent requests",
    path: "/solicitations",
    blurb: "Every review request: to whom, when, and what became of it (delivered, clicked, reviewed, failed).",
  },
] as const;
export type RequestPage = (typeof REQUEST_PAGES)[number]["key"];

/** The section's own navigation, under the page's heading. */
export function RequestsNav({ c, current }: { c: CC; current?: RequestPage }) {
  return (
    <nav class="sub" aria-label="Review requests">
      <ul>
        {REQUEST_PAGES.map((p) => (
          <li>
            <a href={tenantHref(c, p.path)} aria-current={p.key === current ? "page" : undefined}>
              {p.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export const CHANNEL_LABEL: Record<MessageChannel, string> = { email: "Email", sms: "SMS", whatsapp: "WhatsApp" };
export const channelsText = (channels: readonly MessageChannel[]) => channels.map((ch) => CHANNEL_LABEL[ch]).join(", ");

export const CAMPAIGN_TYPE_LABEL: Record<(typeof CAMPAIGN_TYPES)[number], string> = {
  one_time: "One send",
  scheduled_batch: "Scheduled batches",
  drip: "Drip (a sequence of messages)",
  event_triggered: "Triggered by an event",
  continuous: "Continuous",
};

/** A list's filters: a GET form (its values stay in the address, so a filtered view can be linked and reloaded). */
export function Filters({ children }: { children: Child }) {
  return (
    <form method="get" class="filters">
      {children}
      <div class="actions">
        <button type="submit" class="secondary">
          Filter
        </button>
      </div>
    </form>
  );
}

/** One filter: a labelled select whose first choice is "Any". */
export function FilterSelect(props: {
  id: string;
  label: string;
  name: string;
  value: string | undefined;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name}>
        <option value="">Any</option>
        {props.options.map(([value, text]) => (
          <option value={value} selected={props.value === value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A number as people read it (1,234). */
export const n = (v: number) => v.toLocaleString("en-US");

/** The hub: what the section holds, and where to start when nothing is there yet. */
export async function requestsPage(c: CC): Promise<Response> {
  const tenant = await tenantOf(c);
  return page(
    c,
    { title: "Review requests", section: "requests", tenant },
    <>
      <h1>Review requests</h1>
      <RequestsNav c={c} />
      <ul class="hub">
        {REQUEST_PAGES.map((p) => (
          <li>
            <a href={tenantHref(c, p.path)}>{p.label}</a>
            <p class="muted small">{p.blurb}</p>
          </li>
        ))}
      </ul>
      <section class="card" aria-labelledby="first">
        <h2 id="first">Your first request, in three steps</h2>
        <ol>
          <li>
            <a href={tenantHref(c, "/templates")}>Write a template</a> (the message) and approve it.
          </li>
          <li>
            <a href={tenantHref(c, "/campaigns")}>Create a campaign</a> with that template.
          </li>
          <li>Send it from the campaign's page: its progress shows there until every message is sent.</li>
        </ol>
        {!can(c, "manager") && (
          <p class="muted small">Campaigns are created and sent by a manager or an admin of this business.</p>
        )}
      </section>
    </>,
  );
}

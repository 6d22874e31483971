/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { findScopedTenant } from "../tenants/service";
import type { CC } from "./kit";
import type { TenantInFrame } from "./layout";

/*
 * Small pieces every console page shows the same way: the tenant in the header, stars, times, statuses.
 */

/** The tenant of a /app/t/{tenantId} page (after enterTenant resolved the person's access to it). */
export async function tenantOf(c: CC): Promise<TenantInFrame> {
  const row = await findScopedTenant(c.var.control, "all", c.var.access.tenantId);
  return { id: row.id, name: row.name, role: c.var.access.role, via: c.var.access.via };
}

export const tenantHref = (c: CC, rest = "") => `/app/t/${encodeURIComponent(c.var.access.tenantId)}${rest}`;

export function Stars({ rating }: { rating: number | null }) {
  if (rating === null) return <span class="muted">no rating</span>;
  const full = Math.max(0, Math.min(5, Math.round(rating)));
  return (
    <span>
      <span class="stars" aria-hidden="true">
        {"★".repeat(full) + "☆".repeat(5 - full)}
      </span>
      <span class="vh">{`${Number(rating.toFixed(1))} of 5 stars`}</span>
    </span>
  );
}

const DATE_TIME = new Intl.DateTimeFormat("en-US", {
  month: "short",
  day: "numeric",
  year: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
});

/** A moment, readable, with its machine form for assistive tools. */
export const When = ({ iso }: { iso: string | null }) =>
  iso ? <time datetime={iso}>{DATE_TIME.format(new Date(iso))}</time> : <span class="muted">never</span>;

export const SITE_LABEL: Record<string, string> = {
  google: "Google",
  yelp: "Yelp",
  facebook: "Facebook",
  trustpilot: "Trustpilot",
  tripadvisor: "Tripadvisor",
  first_party: "our own page",
};
export const siteName = (s: string) => SITE_LABEL[s] ?? s;

export const pct = (rate: number | null) => (rate === null ? "none yet" : `${Math.round(rate * 100)}%`);

export function minutesText(minutes: number | null): string {
  if (minutes === null) return "none yet";
  if (minutes < 60) return `${Math.round(minutes)} min`;
  if (minutes < 48 * 60) return `${(minutes / 60).toFixed(1)} h`;
  return `${(minutes / 1440).toFixed(1)} days`;
}

/** A list's filter as a select of a GET form (`options`: value, text; "" is no filter), named as its query key. */
export function FilterSelect(props: { id: string; label: string; value?: string; options: [string, string][] }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.id}>
        {props.options.map(([v, text]) => (
          <option value={v} selected={(props.value ?? "") === v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Keyset paging links: the next page by cursor; back to the first. */
export function Pager(props: {
  base: string;
  params: Record<string, string | undefined>;
  endCursor: string | null;
  hasNext: boolean;
  isFirst: boolean;
}) {
  const q = (extra: Record<string, string>) => {
    const s = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...props.params, ...extra })) if (v) s.set(k, v);
    const text = s.toString();
    return text ? `${props.base}?${text}` : props.base;
  };
  if (!props.hasNext && props.isFirst) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {!props.isFirst ? <a href={q({})}>First page</a> : <span />}
      {props.hasNext && props.endCursor && <a href={q({ cursor: props.endCursor })}>Next page</a>}
    </nav>
  );
}

/**
 * A secret shown once, in the answer to the post that made it (an API key, a webhook's signing secret): a
 * read-only field to select without script and a copy button (client/copy.ts) that says what it copied.
 */
export function ShownOnce(props: {
  id: string;
  title: string;
  label: string;
  value: string;
  copy: string;
  copied: string;
  children?: Child;
}) {
  return (
    <section class="card" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <p class="warnbox">Copy it now: it is shown only this once. If it is lost, make a new one.</p>
      <label for={props.id}>{props.label}</label>
      <input id={props.id} class="key" type="text" readonly value={props.value} autocomplete="off" spellcheck={false} />
      <div class="actions">
        <button type="button" class="secondary" data-copy={props.id} data-copied={props.copied} hidden>
          {props.copy}
        </button>
      </div>
      {props.children}
    </section>
  );
}

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { Child } from "hono/jsx";
import { callOperation } from "../../lib/operation-route";
import type { Page } from "../../lib/pagination";
import { listLocationsOperation } from "../locations/operations";
import type { LocationSchema } from "../locations/schemas";
import { Pager, tenantHref, tenantOf } from "./atoms";
import { type CC, csrfOf } from "./kit";
import { Csrf } from "./layout";

/*
 * What the pages about a tenant's places share (locations, review sites, review links, widgets, alerts): the
 * locations for a select, read as GET /v1/locations reads them, the time zones a select offers, and the
 * pieces of their lists and forms (a list's page links, a state tag, a form in a card, a one-button form).
 */

export type Location = z.infer<typeof LocationSchema>;

/** The tenant's locations, newest first, for a select (GET /v1/locations: every role reads it). */
export async function locationsOf(c: CC): Promise<Location[]> {
  return (await callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } })).data;
}

/** A location's name by id, for a row that names it ("every location" for null). */
export const placeName = (locations: Location[], id: string | null) =>
  id === null ? "Every location" : (locations.find((l) => l.id === id)?.name ?? "A removed location");

/**
 * A location select. `none`: the label of the option meaning "no location" (every location, or none), which
 * posts an empty value; without it a location must be chosen.
 */
export function LocationSelect(props: {
  id: string;
  name?: string;
  locations: Location[];
  selected?: string | null;
  none?: string;
}) {
  return (
    <select id={props.id} name={props.name ?? "locationId"} required={!props.none}>
      {props.none && <option value="">{props.none}</option>}
      {props.locations.map((l) => (
        <option value={l.id} selected={l.id === props.selected}>
          {l.name}
          {l.isActive ? "" : " (inactive)"}
        </option>
      ))}
    </select>
  );
}

/** The IANA time zones this runtime knows, UTC first (what the TimeZone validator accepts); made on first use. */
let zones: string[] | undefined;
const zoneList = () => (zones ??= ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")]);

/** A time zone select; `blank`: the label of an empty first option (the server's default). */
export function TimeZoneSelect(props: { id: string; name: string; selected?: string | null; blank?: string }) {
  return (
    <select id={props.id} name={props.name}>
      {props.blank && <option value="">{props.blank}</option>}
      {/* a zone stored under another name (an alias such as US/Eastern) stays selectable, so saving keeps it */}
      {props.selected && !zoneList().includes(props.selected) && (
        <option value={props.selected} selected>
          {props.selected}
        </option>
      )}
      {zoneList().map((z) => (
        <option value={z} selected={z === props.selected}>
          {z.replace(/_/g, " ")}
        </option>
      ))}
    </select>
  );
}

/**
 * What a list page of these reads: its rows at the address's `cursor` (`read`), the tenant for the header, the
 * forms' CSRF token, the locations (for names and selects), and its own address.
 */
export async function listPage<L>(c: CC, path: string, read: (cursor: string | undefined) => Promise<L>) {
  const cursor = c.req.query("cursor") || undefined;
  const [tenant, list, csrf, locations] = await Promise.all([tenantOf(c), read(cursor), csrfOf(c), locationsOf(c)]);
  return { cursor, tenant, list, csrf, locations, base: tenantHref(c, path) };
}

/** A keyset list's page links (the list read with `cursor`, none on its first page; `params`: its filters). */
export const ListPager = (props: {
  base: string;
  list: { pageInfo: { endCursor: string | null; hasNextPage: boolean } };
  cursor?: string;
  params?: Record<string, string | undefined>;
}) => (
  <Pager
    base={props.base}
    params={props.params ?? {}}
    endCursor={props.list.pageInfo.endCursor}
    hasNext={props.list.pageInfo.hasNextPage}
    isFirst={!props.cursor}
  />
);

/** A row's state: `yes` in green when on, else `no` (bad: red, warn: amber). */
export const StateTag = (props: { on: boolean; yes: string; no: string; off?: "bad" | "warn" }) => (
  <span class={props.on ? "status ok" : `status ${props.off ?? "bad"}`}>{props.on ? props.yes : props.no}</span>
);

/** A card with a heading and one form posting to `action`, ended by its submit button; `after`: more below it. */
export function FormCard(props: {
  id: string;
  title: string;
  action: string;
  csrf: string;
  button: string;
  children: Child;
  after?: Child;
}) {
  return (
    <section class="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        {props.children}
        <div class="actions">
          <button type="submit">{props.button}</button>
        </div>
      </form>
      {props.after}
    </section>
  );
}

/** A form of one button (delete, test); `name`: what it acts on, for the button's accessible name. */
export const ButtonForm = (props: { action: string; csrf: string; label: string; danger?: boolean; name?: string }) => (
  <form method="post" action={props.action}>
    <Csrf token={props.csrf} />
    <button
      type="submit"
      class={props.danger ? "danger" : "secondary"}
      aria-label={props.name ? `${props.label}: ${props.name}` : undefined}
    >
      {props.label}
    </button>
  </form>
);

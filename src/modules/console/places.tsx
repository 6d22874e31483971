/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../lib/operation-route";
import type { Page } from "../../lib/pagination";
import { listLocationsOperation } from "../locations/operations";
import type { LocationSchema } from "../locations/schemas";
import type { CC } from "./kit";

/*
 * What the pages about a tenant's places share (locations, review sites, review links, widgets, alerts): the
 * locations for a select, read as GET /v1/locations reads them, and the time zones a select offers.
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

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { FileAnswer } from "../../../lib/operation";
import { callOperation, respond } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { listApiKeysOperation } from "../../api-keys/operations";
import type { ApiKeyDto } from "../../api-keys/schemas";
import { exportAuditEventsOperation, listAuditEventsOperation } from "../../audit/operations";
import type { AuditEventSchema } from "../../audit/schemas";
import { listUsersOperation } from "../../users/operations";
import type { TenantUserDto } from "../../users/schemas";
import { Pager, tenantHref, tenantOf, When } from "../atoms";
import { type CC, page } from "../kit";

/*
 * Audit log (docs/console.md, issue #46 item 6; the specification: "viewed in the admin console and exported
 * as CSV"): this tenant's audit events newest first, filtered by actor, action, target and date as GET
 * /v1/audit-events filters them, and the filtered view as CSV, GET /v1/audit-events/export's own download
 * (audit/download.ts: header row, RFC 4180, formula-safe cells); the actors' names from GET /v1/users and GET
 * /v1/api-keys. Each read is its REST operation (callOperation): tenant_admin, as REST.
 */

type AuditEvent = z.infer<typeof AuditEventSchema>;

/** The filters as the page's form names them (dates are days, the REST query's instants are derived). */
const FIELDS = ["actorId", "action", "resourceType", "resourceId", "from", "to"] as const;
type Fields = Record<(typeof FIELDS)[number], string>;

const fieldsOf = (c: CC): Fields => Object.fromEntries(FIELDS.map((k) => [k, (c.req.query(k) ?? "").trim()])) as Fields;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A day of the form (yyyy-mm-dd, UTC) as an instant: its start, or with `after` the next day's start. */
function dayStart(day: string, after = false): string {
  if (!DAY.test(day)) return day; // REST's schema refuses it with its own 400
  const d = new Date(`${day}T00:00:00Z`);
  if (after) d.setUTCDate(d.getUTCDate() + 1);
  return Number.isNaN(d.getTime()) ? day : d.toISOString();
}

/** The REST query of the form's fields: "to" is inclusive of its day (occurredAt < the next day's start). */
const restQuery = (f: Fields): Record<string, string | undefined> => ({
  actorId: f.actorId || undefined,
  action: f.action || undefined,
  resourceType: f.resourceType || undefined,
  resourceId: f.resourceId || undefined,
  from: f.from ? dayStart(f.from) : undefined,
  to: f.to ? dayStart(f.to, true) : undefined,
});

const queryString = (f: Partial<Fields>) => {
  const s = new URLSearchParams(Object.entries(f).filter((e): e is [string, string] => !!e[1])).toString();
  return s ? `?${s}` : "";
};

/** Names for the actors this tenant knows: its people and its live API keys (the rest show their id). */
async function actorsOf(c: CC) {
  const [people, keys] = await Promise.all([
    callOperation<Page<TenantUserDto>>(c, listUsersOperation, { query: { limit: "200" } }),
    callOperation<Page<ApiKeyDto>>(c, listApiKeysOperation, { query: { limit: "100" } }),
  ]);
  return {
    people: people.data.map((u) => ({ id: u.id, name: u.name || u.email })),
    keys: keys.data.map((k) => ({ id: k.id, name: `API key “${k.name}”` })),
  };
}

function actorText(e: AuditEvent, names: Map<string, string>): string {
  const meta = (e.metadata ?? {}) as Record<string, unknown>;
  if (!e.actorId) return typeof meta.job === "string" ? `The system (${meta.job})` : "The system";
  const known = names.get(e.actorId);
  if (known) return known;
  if (meta.credential === "api_key") return `A revoked API key (${e.actorId})`;
  if (e.actorType === "platform_admin") return `The platform's admin (${e.actorId})`;
  if (meta.via === "agency") return `The agency's admin (${e.actorId})`;
  return `A person no longer on the team (${e.actorId})`;
}

function Filters(props: { f: Fields; actors: { id: string; name: string }[] }) {
  const { f } = props;
  const listed = props.actors.some((a) => a.id === f.actorId);
  return (
    <form method="get" class="filters" aria-label="Filter the audit log">
      <div>
        <label for="actorId">Who</label>
        <select id="actorId" name="actorId">
          <option value="">Anyone</option>
          {props.actors.map((a) => (
            <option value={a.id} selected={a.id === f.actorId}>
              {a.name}
            </option>
          ))}
          {f.actorId && !listed && (
            <option value={f.actorId} selected>
              {f.actorId}
            </option>
          )}
        </select>
      </div>
      <div>
        <label for="action">Action</label>
        <input id="action" name="action" type="text" value={f.action} maxlength={100} placeholder="user.invited" />
      </div>
      <div>
        <label for="resourceType">Target kind</label>
        <input id="resourceType" name="resourceType" type="text" value={f.resourceType} maxlength={100} />
      </div>
      <div>
        <label for="resourceId">Target id</label>
        <input id="resourceId" name="resourceId" type="text" value={f.resourceId} maxlength={100} />
      </div>
      <div>
        <label for="from">From (UTC)</label>
        <input id="from" name="from" type="date" value={f.from} />
      </div>
      <div>
        <label for="to">To, inclusive (UTC)</label>
        <input id="to" name="to" type="date" value={f.to} />
      </div>
      <div class="actions">
        <button type="submit" class="secondary">
          Filter
        </button>
      </div>
    </form>
  );
}

export async function auditPage(c: CC): Promise<Response> {
  const f = fieldsOf(c);
  const cursor = c.req.query("cursor") || undefined;
  const [list, tenant, actors] = await Promise.all([
    callOperation<Page<AuditEvent>>(c, listAuditEventsOperation, { query: { ...restQuery(f), cursor, limit: "50" } }),
    tenantOf(c),
    actorsOf(c),
  ]);
  const everyone = [...actors.people, ...actors.keys];
  const names = new Map(everyone.map((a) => [a.id, a.name]));
  const base = tenantHref(c, "/audit");
  const filtered = FIELDS.some((k) => f[k]);
  return page(
    c,
    { title: "Audit log", section: "audit", tenant },
    <>
      <h1>Audit log</h1>
      <Filters f={f} actors={everyone} />
      <div class="actions">
        <p class="muted" role="status">
          {list.total === 1 ? "1 event" : `${list.total} events`}
          {filtered ? (list.total === 1 ? " matches" : " match") : ""}
        </p>
        <a class="button secondary" href={`${base}/export${queryString(f)}`} download>
          Export {filtered ? "these" : "all"} as CSV
        </a>
        {filtered && <a href={base}>Clear the filters</a>}
      </div>
      {list.data.length === 0 ? (
        <p class="card">
          {filtered
            ? "No event matches these filters."
            : "Nothing recorded yet. Changes to the team, keys and settings appear here."}
        </p>
      ) : (
        <table class="rows">
          <caption>Events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((e) => (
              <tr>
                <th scope="row" data-label="When">
                  <When iso={e.occurredAt} />
                </th>
                <td data-label="Who">
                  {e.actorId ? (
                    <a href={`${base}${queryString({ ...f, actorId: e.actorId })}`}>{actorText(e, names)}</a>
                  ) : (
                    actorText(e, names)
                  )}
                </td>
                <td data-label="Action">
                  <a href={`${base}${queryString({ ...f, action: e.action })}`}>
                    <code>{e.action}</code>
                  </a>
                </td>
                <td data-label="Target">
                  <a href={`${base}${queryString({ ...f, resourceType: e.resourceType, resourceId: e.resourceId })}`}>
                    {e.resourceType} <code>{e.resourceId}</code>
                  </a>
                </td>
                <td data-label="Change">
                  {e.previousState === null && e.nextState === null ? (
                    <span class="muted">none recorded</span>
                  ) : (
                    <details>
                      <summary>Before and after</summary>
                      <pre>{`before: ${JSON.stringify(e.previousState, null, 1)}\nafter: ${JSON.stringify(e.nextState, null, 1)}`}</pre>
                    </details>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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

/** GET …/audit/export: the filtered view as REST's CSV download (the same filters, the same rows). */
export async function auditExport(c: CC): Promise<Response> {
  const file = await callOperation<FileAnswer>(c, exportAuditEventsOperation, { query: restQuery(fieldsOf(c)) });
  return respond(c, exportAuditEventsOperation, file);
}

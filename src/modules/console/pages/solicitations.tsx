/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import {
  BLOCKED_REASONS,
  type BlockedReason,
  MESSAGE_CHANNELS,
  SOLICITATION_STATUSES,
  type SolicitationStatus,
} from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { listCampaignsOperation } from "../../campaigns/operations";
import type { CampaignDto } from "../../campaigns/schemas";
import { listSolicitationsOperation } from "../../solicitations/operations";
import type { SolicitationWithContactSchema } from "../../solicitations/schemas";
import { Pager, tenantHref, tenantOf, When } from "../atoms";
import { type CC, page } from "../kit";
import { CHANNEL_LABEL, FilterSelect, Filters, RequestsNav } from "./requests";

/*
 * Sent requests (docs/console.md, "Review requests"): GET /v1/solicitations with its filters (status, channel,
 * campaign, the policy's reason, a range of days), keyset pages of 50, newest first; every role reads it. Each
 * row says what became of the request: delivered, clicked, reviewed, why it failed or why the sending policy
 * refused it, or that its outcome is unknown.
 */

type Solicitation = z.infer<typeof SolicitationWithContactSchema>;

export const solicitationsHref = (c: CC) => tenantHref(c, "/solicitations");

export const SOLICITATION_STATUS_LABEL: Record<SolicitationStatus, string> = {
  PENDING: "Waiting to be sent",
  SENT: "Sent",
  DELIVERED: "Delivered",
  FAILED: "Failed",
  BLOCKED: "Refused by the sending policy",
  BOUNCED: "Bounced",
};
const STATUS_TONE: Record<SolicitationStatus, string> = {
  PENDING: "status warn",
  SENT: "status",
  DELIVERED: "status ok",
  FAILED: "status bad",
  BLOCKED: "status warn",
  BOUNCED: "status bad",
};

/** Why the sending policy refused a request (decisions.md, "Policy order"), as a person reads it. */
export const BLOCKED_REASON_LABEL: Record<BlockedReason, string> = {
  TENANT_PAUSED: "the business is paused",
  SUPPRESSED: "the customer opted out",
  MISSING_ADDRESS: "no address for this channel",
  NO_CONSENT: "no consent for this channel",
  QUIET_HOURS: "quiet hours at the customer's time",
  FREQUENCY_CAP_DAILY: "already asked today (daily cap)",
  FREQUENCY_CAP_WEEKLY: "already asked this week (weekly cap)",
};

/** The customer of a request: name and address as stored. */
export const contactText = (p: Solicitation["contact"]) =>
  [[p.firstName, p.lastName].filter(Boolean).join(" "), p.email ?? p.phone].filter(Boolean).join(", ") ||
  "a contact since erased";

/** A day (YYYY-MM-DD, UTC) as the list's instant: its start; `to` includes its whole day, as REST's `createdAt < to`. */
const dayStart = (day: string) => (/^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00Z` : day || undefined);
const nextDayStart = (day: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(day)
    ? new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString()
    : day || undefined;

function Outcome({ s }: { s: Solicitation }) {
  const reached: [string, string | null][] = [
    ["sent", s.sentAt],
    ["delivered", s.deliveredAt],
    ["clicked", s.clickedAt],
    ["reviewed", s.convertedAt],
  ];
  const done = reached.filter(([, at]) => at);
  return (
    <>
      {done.length === 0 ? (
        <span class="muted">not yet</span>
      ) : (
        done.map(([what, at], i) => (
          <>
            {i > 0 && ", "}
            {what} <When iso={at} />
          </>
        ))
      )}
    </>
  );
}

export async function solicitationsPage(c: CC): Promise<Response> {
  const q = (name: string) => c.req.query(name) || undefined;
  const days = { from: q("from"), to: q("to") };
  const filters = {
    status: q("status"),
    channel: q("channel"),
    campaignId: q("campaignId"),
    blockedReason: q("blockedReason"),
  };
  const [tenant, list, campaigns] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Solicitation>>(c, listSolicitationsOperation, {
      query: {
        ...filters,
        from: days.from && dayStart(days.from),
        to: days.to && nextDayStart(days.to),
        cursor: q("cursor"),
        limit: "50",
      },
    }),
    callOperation<Page<CampaignDto>>(c, listCampaignsOperation, { query: { limit: "200" } }),
  ]);
  const names = new Map(campaigns.data.map((x) => [x.id, x.name]));
  const filtered = Object.values({ ...filters, ...days }).some(Boolean);
  return page(
    c,
    { title: "Sent requests", section: "requests", tenant },
    <>
      <h1>Sent requests</h1>
      <RequestsNav c={c} current="solicitations" />
      <Filters>
        <FilterSelect
          id="filter-status"
          label="Status"
          name="status"
          value={filters.status}
          options={SOLICITATION_STATUSES.map((st) => [st, SOLICITATION_STATUS_LABEL[st]])}
        />
        <FilterSelect
          id="filter-channel"
          label="Channel"
          name="channel"
          value={filters.channel}
          options={MESSAGE_CHANNELS.map((ch) => [ch, CHANNEL_LABEL[ch]])}
        />
        <FilterSelect
          id="filter-campaign"
          label="Campaign"
          name="campaignId"
          value={filters.campaignId}
          options={campaigns.data.map((x) => [x.id, x.name])}
        />
        <FilterSelect
          id="filter-reason"
          label="Refused because"
          name="blockedReason"
          value={filters.blockedReason}
          options={BLOCKED_REASONS.map((r) => [r, BLOCKED_REASON_LABEL[r]])}
        />
        <div>
          <label for="filter-from">From (day, UTC)</label>
          <input id="filter-from" name="from" type="date" value={days.from ?? ""} />
        </div>
        <div>
          <label for="filter-to">To (day, UTC)</label>
          <input id="filter-to" name="to" type="date" value={days.to ?? ""} />
        </div>
      </Filters>
      {list.data.length === 0 ? (
        <p class="card">
          {filtered
            ? "No request matches these filters."
            : "No request sent yet. Send a campaign from its page under Campaigns."}
        </p>
      ) : (
        <table class="rows">
          <caption>Requests ({list.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">Customer</th>
              <th scope="col">Channel</th>
              <th scope="col">Status</th>
              <th scope="col">Campaign</th>
              <th scope="col">Created</th>
              <th scope="col">Then</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((s) => (
              <tr>
                <th scope="row" data-label="Customer">
                  {contactText(s.contact)}
                </th>
                <td data-label="Channel">{CHANNEL_LABEL[s.channel]}</td>
                <td data-label="Status">
                  <span class={STATUS_TONE[s.status]}>{SOLICITATION_STATUS_LABEL[s.status]}</span>
                  {s.blockedReason && <p class="small">{BLOCKED_REASON_LABEL[s.blockedReason]}</p>}
                  {s.failureReason && <p class="small">{s.failureReason}</p>}
                  {s.deliveryOutcome === "unknown" && (
                    <p class="small">outcome unknown: the provider's answer was lost; not sent again</p>
                  )}
                </td>
                <td data-label="Campaign">
                  {s.campaignId ? (
                    <a href={tenantHref(c, `/campaigns/${encodeURIComponent(s.campaignId)}`)}>
                      {names.get(s.campaignId) ?? "a campaign"}
                    </a>
                  ) : (
                    <span class="muted">none</span>
                  )}
                </td>
                <td data-label="Created">
                  <When iso={s.createdAt} />
                </td>
                <td data-label="Then">
                  <Outcome s={s} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={solicitationsHref(c)}
        params={{ ...filters, ...days }}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!q("cursor")}
      />
    </>,
  );
}

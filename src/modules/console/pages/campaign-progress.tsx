/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { renderHtml } from "../../../lib/html";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { funnelAnalyticsOperation } from "../../analytics/operations";
import type { FunnelSchema } from "../../analytics/schemas";
import { getCampaignOperation } from "../../campaigns/operations";
import type { CampaignDto } from "../../campaigns/schemas";
import { listCampaignSolicitationsOperation } from "../../campaigns/send.operations";
import { listSolicitationsOperation } from "../../solicitations/operations";
import type { SolicitationWithContactSchema } from "../../solicitations/schemas";
import type { CC } from "../kit";
import { n } from "./requests";

/*
 * A campaign's figures and its send's progress (docs/console.md, "Review requests"), as the API reports them:
 * - sent, delivered, clicked, reviewed, failed (or bounced), refused by the sending policy: GET
 *   /v1/analytics/funnel?campaignId= (the campaign's funnel, from its first day to today; the daily rollups
 *   follow the sends within seconds, and at most minutes after the last change, docs/analytics.md);
 * - waiting to be sent: GET /v1/solicitations?campaignId=&status=PENDING's total (read live: a send is done
 *   when none is left);
 * - outcome unknown: GET /v1/campaigns/{id}/solicitations?deliveryOutcome=unknown's total.
 * The page renders them; the client part (client/campaign-progress.tsx) asks /campaigns/{id}/progress for the
 * same fragment every few seconds while anything waits, so it updates without a reload, and a reload finds it.
 */

type Solicitation = z.infer<typeof SolicitationWithContactSchema>;
type Funnel = z.infer<typeof FunnelSchema>;

export interface CampaignFigures {
  requested: number;
  pending: number;
  sent: number;
  delivered: number;
  clicked: number;
  converted: number;
  failed: number;
  blocked: number;
  outcomeUnknown: number;
}

/** The longest range GET /v1/analytics/funnel reads (analytics/schemas.ts MAX_RANGE_DAYS). */
const FUNNEL_DAYS = 731;
const DAY_MS = 86_400_000;

/** The campaign's whole life as funnel days (UTC): from the day it was made, at most two years back. */
function lifeOf(campaign: CampaignDto, now = new Date()) {
  const today = now.toISOString().slice(0, 10);
  const earliest = new Date(now.getTime() - (FUNNEL_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const made = campaign.createdAt.slice(0, 10);
  // days as text (YYYY-MM-DD) compare in calendar order
  return { dateFrom: made.localeCompare(earliest) < 0 ? earliest : made, dateTo: today };
}

export async function figuresOf(c: CC, campaign: CampaignDto): Promise<CampaignFigures> {
  const [funnel, pending, unknown] = await Promise.all([
    callOperation<Funnel>(c, funnelAnalyticsOperation, { query: { campaignId: campaign.id, ...lifeOf(campaign) } }),
    callOperation<Page<Solicitation>>(c, listSolicitationsOperation, {
      query: { campaignId: campaign.id, status: "PENDING", limit: "1" },
    }),
    callOperation<{ total: number }>(c, listCampaignSolicitationsOperation, {
      params: { id: campaign.id },
      query: { deliveryOutcome: "unknown", limit: "1" },
    }),
  ]);
  const f = funnel.totals;
  return {
    requested: f.requested,
    pending: pending.total,
    sent: f.sent,
    delivered: f.delivered,
    clicked: f.clicked,
    converted: f.converted,
    failed: f.failed,
    blocked: f.blocked,
    outcomeUnknown: unknown.total,
  };
}

const share = (part: number, of: number) => (of > 0 ? ` (${Math.round((part / of) * 100)}%)` : "");

/** What the send is doing, in a sentence. */
export function progressText(f: CampaignFigures): string {
  if (f.pending > 0) return `Sending: ${n(f.pending)} message${f.pending === 1 ? "" : "s"} still waiting to be sent.`;
  if (f.requested === 0) return "Nothing sent yet.";
  return "Nothing is waiting: every message has gone to the providers or was refused by the sending policy.";
}

/** The figures, as the page shows them and the progress address answers them (one rendering for both). */
export function CampaignProgress({ f }: { f: CampaignFigures }) {
  const stats: [string, number, string, boolean?][] = [
    ["Requested", f.requested, ""],
    ["Waiting to be sent", f.pending, ""],
    ["Sent", f.sent, share(f.sent, f.requested)],
    ["Delivered", f.delivered, share(f.delivered, f.sent)],
    ["Clicked", f.clicked, share(f.clicked, f.sent)],
    ["Reviewed", f.converted, share(f.converted, f.sent)],
    ["Failed or bounced", f.failed, "", f.failed > 0],
    ["Refused by the sending policy", f.blocked, ""],
    ["Outcome unknown", f.outcomeUnknown, "", f.outcomeUnknown > 0],
  ];
  const handed = Math.max(0, f.requested - f.pending);
  return (
    <div>
      <p role="status">{progressText(f)}</p>
      {f.pending > 0 && (
        <progress max={Math.max(f.requested, 1)} value={handed} aria-label="Messages handed to the providers" />
      )}
      <dl class="stats compact">
        {stats.map(([label, value, rate, bad]) => (
          <div class={bad ? "stat bad" : "stat"}>
            <dt>{label}</dt>
            <dd>
              {n(value)}
              {rate && <small>{rate}</small>}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** What the client part polls: whether anything still waits, and the figures' fragment. */
export async function campaignProgress(c: CC): Promise<Response> {
  const campaign = await callOperation<CampaignDto>(c, getCampaignOperation, {
    params: { id: c.req.param("campaignId") ?? "" },
  });
  const f = await figuresOf(c, campaign);
  return c.json({ finished: f.pending === 0, html: renderHtml(<CampaignProgress f={f} />) }, 200, {
    "cache-control": "no-store",
  });
}

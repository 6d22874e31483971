import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS, type MessageChannel, REVIEW_DESTINATIONS } from "../../../db/schema";
import type { ComplianceConfig } from "../../compliance/schemas";
import { defineAgent } from "../define";
import { rate, round, wilsonInterval } from "../stats";
import { type Evidence, Evidences, RangeInput, rangeOf } from "../types";

/** Slots (channel, hour, weekday, destination) with fewer sends are not ranked: their rates are noise. */
export const MIN_SENDS = 20;

const input = z
  .object({
    locationId: z.string().min(1).max(64).optional(),
    brandId: z.string().min(1).max(64).optional(),
    ...RangeInput,
  })
  .openapi("CampaignStrategistInput");

const Rate = z.object({ sent: z.number().int(), converted: z.number().int(), conversionRate: z.number().nullable() });
const output = z
  .object({
    channelMix: z.array(
      Rate.extend({
        channel: z.enum(MESSAGE_CHANNELS),
        conversionRateCi: z.object({ low: z.number(), high: z.number() }).nullable(),
        recommendedShare: z.number().describe("percent of requests to send on this channel"),
        evidence: Evidences,
      }),
    ),
    sendTiming: z.object({
      bestHours: z
        .array(Rate.extend({ hour: z.number().int() }))
        .describe("local hours outside quiet hours, best conversion first"),
      bestWeekdays: z.array(Rate.extend({ weekday: z.string() })),
      quietHours: z.object({ start: z.string(), end: z.string() }),
      evidence: Evidences,
    }),
    destination: z.object({ recommended: z.enum(REVIEW_DESTINATIONS), reason: z.string(), evidence: Evidences }),
    sequence: z.object({
      steps: z.array(
        z.object({ stepIndex: z.number().int(), channel: z.enum(MESSAGE_CHANNELS), delayDays: z.number().int() }),
      ),
      reason: z.string(),
      evidence: Evidences,
    }),
    notes: z.array(z.string()),
  })
  .openapi("CampaignStrategistOutput");

type Slot = { sent: number; converted: number };
const withRate = <T extends Slot>(s: T) => ({
  ...s,
  conversionRate: rate(s.converted, s.sent) === null ? null : round(rate(s.converted, s.sent)!),
});
const best = <T extends Slot>(xs: T[]) =>
  xs.filter((x) => x.sent >= MIN_SENDS).sort((a, b) => b.converted / b.sent - a.converted / a.sent);

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
/** Whether a whole local hour lies outside the quiet window (which may cross midnight). */
function hourAllowed(hour: number, q: { quietHoursStart: string; quietHoursEnd: string }) {
  const s = minutes(q.quietHoursStart);
  const e = minutes(q.quietHoursEnd);
  const inQuiet = (m: number) => (s <= e ? m >= s && m < e : m >= s || m < e);
  return !inQuiet(hour * 60) && !inQuiet(hour * 60 + 59);
}

/** Whole-percent shares proportional to conversion rate; the rounding remainder goes to the best channel. */
function shares(rates: number[]): number[] {
  const total = rates.reduce((a, b) => a + b, 0);
  if (total === 0) return rates.map(() => 0);
  const s = rates.map((r) => Math.floor((r / total) * 100));
  s[0]! += 100 - s.reduce((a, b) => a + b, 0);
  return s;
}

export const campaignStrategist = defineAgent({
  name: "agent.campaign-strategist",
  title: "Campaign strategist",
  description:
    "Plans review-request campaigns for a location or brand from the tenant's history: channel mix, send timing " +
    "outside quiet hours, destination and a reminder sequence, each with the figures behind it.",
  input,
  output,
  systemPrompt:
    "You plan review-request campaigns. Base the channel mix on conversion by channel, timing on conversion by local hour and " +
    `weekday (ignore slots with fewer than ${MIN_SENDS} sends, never suggest quiet hours), the destination on what converted and ` +
    "whether the location has a Google place id, and the reminder delay on how long customers take to convert.",
  tools: ["analytics.funnel", "analytics.send-timing", "campaign.list", "location.get", "compliance.config"],
  range: (i) => rangeOf(i),
  async rules(run, i) {
    const range = run.range!;
    const scope = { dateFrom: range.from, dateTo: range.to, locationId: i.locationId, brandId: i.brandId };
    const notes: string[] = [];
    const funnel = await run.tool<{
      byChannel: (Slot & { channel: MessageChannel })[];
      byCampaign: (Slot & { campaignId: string | null })[];
    }>("analytics.funnel", scope);
    const timing = await run.tool<{
      sends: number;
      byHour: (Slot & { hour: number })[];
      byWeekday: (Slot & { weekday: string })[];
      daysToConvert: { count: number; p75: number | null };
    }>("analytics.send-timing", scope);
    const config = await run.tool<ComplianceConfig>("compliance.config");

    const ranked = best(funnel.byChannel);
    const share = shares(ranked.map((c) => c.converted / c.sent));
    const channelMix = funnel.byChannel
      .map((c) => {
        const k = ranked.indexOf(c);
        const ci = wilsonInterval(c.converted, c.sent);
        return {
          ...withRate({ channel: c.channel, sent: c.sent, converted: c.converted }),
          conversionRateCi: ci ? { low: round(ci.low), high: round(ci.high) } : null,
          recommendedShare: k === -1 ? 0 : share[k]!,
          evidence: [
            {
              source: "analytics.funnel",
              id: null,
              label: `${c.channel} sent / converted`,
              value: `${c.sent} / ${c.converted}`,
            },
          ],
        };
      })
      .sort((a, b) => b.recommendedShare - a.recommendedShare || a.channel.localeCompare(b.channel));
    if (!ranked.length)
      notes.push(
        `No channel has ${MIN_SENDS} or more sends in ${range.from}..${range.to}; the channel mix is not ranked.`,
      );

    const hours = best(timing.byHour.filter((h) => hourAllowed(h.hour, config)))
      .slice(0, 3)
      .map(withRate);
    const weekdays = best(timing.byWeekday).slice(0, 3).map(withRate);
    if (!hours.length) notes.push(`No sending hour has ${MIN_SENDS} or more sends; timing is not ranked.`);
    const timingEvidence: Evidence[] = [
      ...hours.map((h) => ({
        source: "analytics.send-timing",
        id: null,
        label: `hour ${h.hour} sent / converted`,
        value: `${h.sent} / ${h.converted}`,
      })),
      ...weekdays.map((d) => ({
        source: "analytics.send-timing",
        id: null,
        label: `${d.weekday} sent / converted`,
        value: `${d.sent} / ${d.converted}`,
      })),
    ];

    const campaigns = await run.tool<{
      data: { id: string; reviewDestination: (typeof REVIEW_DESTINATIONS)[number] }[];
    }>("campaign.list", { locationId: i.locationId, brandId: i.brandId, limit: 200 });
    const destOf = new Map(campaigns.data.map((c) => [c.id, c.reviewDestination]));
    const byDest = new Map<string, Slot>();
    for (const c of funnel.byCampaign) {
      const d = c.campaignId ? destOf.get(c.campaignId) : undefined;
      if (!d) continue;
      const s = byDest.get(d) ?? { sent: 0, converted: 0 };
      byDest.set(d, { sent: s.sent + c.sent, converted: s.converted + c.converted });
    }
    const destRanked = best(
      [...byDest.entries()].map(([d, s]) => ({ destination: d as (typeof REVIEW_DESTINATIONS)[number], ...s })),
    );
    let destination: z.infer<typeof output>["destination"];
    if (destRanked.length) {
      const d = destRanked[0]!;
      destination = {
        recommended: d.destination,
        reason: `Campaigns sending to ${d.destination} converted best: ${round((d.converted / d.sent) * 100, 1)}% of ${d.sent} sends.`,
        evidence: destRanked.map((x) => ({
          source: "analytics.funnel",
          id: null,
          label: `${x.destination} sent / converted`,
          value: `${x.sent} / ${x.converted}`,
        })),
      };
    } else if (i.locationId) {
      const loc = await run.tool<{ id: string; googlePlaceId: string | null }>("location.get", {
        locationId: i.locationId,
      });
      destination = loc.googlePlaceId
        ? {
            recommended: "google",
            reason:
              "Not enough sends to compare destinations; the location has a Google place id, so send customers to Google.",
            evidence: [{ source: "location.get", id: loc.id, label: "googlePlaceId", value: loc.googlePlaceId }],
          }
        : {
            recommended: "feedback",
            reason:
              "Not enough sends to compare destinations and the location has no Google place id: use the hosted feedback page, which offers every public review link.",
            evidence: [{ source: "location.get", id: loc.id, label: "googlePlaceId", value: null }],
          };
    } else {
      destination = {
        recommended: "auto",
        reason:
          "Not enough sends to compare destinations: auto sends to Google where a location has a place id, else the feedback page.",
        evidence: [],
      };
    }

    const first = (ranked[0]?.channel ?? "email") as MessageChannel;
    const second = (ranked[1]?.channel ?? first) as MessageChannel;
    const p75 = timing.daysToConvert.p75;
    const delay = p75 === null ? 3 : Math.min(7, Math.max(1, Math.ceil(p75)));
    const sequence = {
      steps: [
        { stepIndex: 0, channel: first, delayDays: 0 },
        { stepIndex: 1, channel: second, delayDays: delay },
      ],
      reason:
        p75 === null
          ? `No conversions with a known delay; a reminder after ${delay} days on ${second} is the default.`
          : `Three quarters of conversions came within ${round(p75, 1)} days of sending, so the reminder goes after ${delay} days, on ${second}${second === first ? "" : " (the second-best channel)"}.`,
      evidence: [
        {
          source: "analytics.send-timing",
          id: null,
          label: "conversions with a known delay",
          value: timing.daysToConvert.count,
        },
        {
          source: "analytics.send-timing",
          id: null,
          label: "p75 days to convert",
          value: p75 === null ? null : round(p75, 2),
        },
      ],
    };
    return {
      channelMix,
      sendTiming: {
        bestHours: hours,
        bestWeekdays: weekdays,
        quietHours: { start: config.quietHoursStart, end: config.quietHoursEnd },
        evidence: timingEvidence,
      },
      destination,
      sequence,
      notes,
    };
  },
});

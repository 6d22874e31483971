import { and, desc, eq, gte, inArray, isNotNull, lt } from "drizzle-orm";
import { locations, solicitations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { addDays, type DayRange as DateRange } from "../../lib/day-range";
import { isTimeZone, wallClock } from "../../lib/zoned-time";

/** The most recent sends read for timing; enough for stable hour and weekday rates, bounded for D1. */
export const SEND_TIMING_MAX_ROWS = 20_000;
export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

interface Bucket {
  sent: number;
  converted: number;
}

/** The local hour and weekday (0 = Sunday) of the instant; an unknown zone reads as UTC. */
function localParts(iso: string, timeZone: string): { hour: number; weekday: number } {
  const { hour, weekday } = wallClock(new Date(iso), isTimeZone(timeZone) ? timeZone : "UTC");
  return { hour, weekday };
}

/**
 * Conversion of sent review requests by the hour and weekday they were sent, in the location's
 * local time, plus the days from send to conversion. Reads the tenant's sent solicitations of the
 * window (newest SEND_TIMING_MAX_ROWS), optionally of one location or brand.
 */
export async function sendTiming(
  ctx: ServiceContext,
  q: { range: DateRange; locationId?: string; brandId?: string; campaignId?: string },
) {
  const brandLocations = q.brandId
    ? (
        await ctx.db
          .select({ id: locations.id })
          .from(locations)
          .where(and(eq(locations.tenantId, ctx.tenantId), eq(locations.brandId, q.brandId)))
      ).map((l) => l.id)
    : null;
  const rows = await ctx.db
    .select({
      id: solicitations.id,
      sentAt: solicitations.sentAt,
      convertedAt: solicitations.convertedAt,
      channel: solicitations.channel,
      timezone: locations.timezone,
    })
    .from(solicitations)
    .innerJoin(
      locations,
      and(eq(locations.id, solicitations.locationId), eq(locations.tenantId, solicitations.tenantId)),
    )
    .where(
      and(
        eq(solicitations.tenantId, ctx.tenantId),
        isNotNull(solicitations.sentAt),
        gte(solicitations.sentAt, `${q.range.from}T00:00:00.000Z`),
        lt(solicitations.sentAt, `${addDays(q.range.to, 1)}T00:00:00.000Z`),
        q.locationId ? eq(solicitations.locationId, q.locationId) : undefined,
        q.campaignId ? eq(solicitations.campaignId, q.campaignId) : undefined,
        brandLocations ? inArray(solicitations.locationId, brandLocations.length ? brandLocations : [""]) : undefined,
      ),
    )
    .orderBy(desc(solicitations.sentAt))
    .limit(SEND_TIMING_MAX_ROWS);
  const byHour: Bucket[] = Array.from({ length: 24 }, () => ({ sent: 0, converted: 0 }));
  const byWeekday: Bucket[] = Array.from({ length: 7 }, () => ({ sent: 0, converted: 0 }));
  const daysToConvert: number[] = [];
  for (const r of rows) {
    const { hour, weekday } = localParts(r.sentAt!, r.timezone);
    byHour[hour]!.sent++;
    byWeekday[weekday]!.sent++;
    if (r.convertedAt) {
      byHour[hour]!.converted++;
      byWeekday[weekday]!.converted++;
      daysToConvert.push(Math.max(0, (Date.parse(r.convertedAt) - Date.parse(r.sentAt!)) / 86_400_000));
    }
  }
  daysToConvert.sort((a, b) => a - b);
  return {
    range: q.range,
    sends: rows.length,
    truncated: rows.length === SEND_TIMING_MAX_ROWS,
    byHour: byHour.map((b, hour) => ({ hour, ...b })),
    byWeekday: byWeekday.map((b, i) => ({ weekday: WEEKDAYS[i]!, ...b })),
    daysToConvert: {
      count: daysToConvert.length,
      median: quantile(daysToConvert, 0.5),
      p75: quantile(daysToConvert, 0.75),
    },
  };
}

function quantile(sorted: number[], q: number): number | null {
  if (!sorted.length) return null;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

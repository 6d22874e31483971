import type { DigestFrequency } from "../../db/schema";
import { addDaysToDate, isoWeekday, localDate, zonedTimeToUtc } from "../../lib/zoned-time";

export interface DigestSchedule {
  digestFrequency: DigestFrequency;
  digestHour: number;
  digestWeekday: number;
  timeZone: string;
}

/** One due digest: the local date it is due on (its period key) and the instant. */
export interface DueDigest {
  date: string;
  at: Date;
}

const isDueDay = (s: DigestSchedule, date: string) =>
  s.digestFrequency === "daily" || isoWeekday(date) === s.digestWeekday;

/** The latest due instant at or before `now` (what a sweep sends now), or null when there is no digest. */
export function latestDue(s: DigestSchedule, now: Date): DueDigest | null {
  if (s.digestFrequency === "none") return null;
  const today = localDate(now, s.timeZone);
  for (let back = 0; back <= 8; back++) {
    const date = addDaysToDate(today, -back);
    if (!isDueDay(s, date)) continue;
    const at = zonedTimeToUtc(date, s.digestHour, s.timeZone);
    if (at.getTime() <= now.getTime()) return { date, at };
  }
  return null;
}

/** The first due instant strictly after `after`. */
export function nextDue(s: DigestSchedule, after: Date): DueDigest | null {
  if (s.digestFrequency === "none") return null;
  const today = localDate(after, s.timeZone);
  for (let ahead = -1; ahead <= 8; ahead++) {
    const date = addDaysToDate(today, ahead);
    if (!isDueDay(s, date)) continue;
    const at = zonedTimeToUtc(date, s.digestHour, s.timeZone);
    if (at.getTime() > after.getTime()) return { date, at };
  }
  return null;
}

/** The period a digest due on `date` covers: from the previous due instant to this one (23 or 25 hours across a DST change). */
export function digestPeriod(s: DigestSchedule, date: string): { start: Date; end: Date } {
  const days = s.digestFrequency === "weekly" ? 7 : 1;
  return {
    start: zonedTimeToUtc(addDaysToDate(date, -days), s.digestHour, s.timeZone),
    end: zonedTimeToUtc(date, s.digestHour, s.timeZone),
  };
}

export const periodKey = (s: DigestSchedule, date: string) => `${s.digestFrequency}:${date}`;

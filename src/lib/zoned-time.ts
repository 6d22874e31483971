/**
 * Wall-clock arithmetic in an IANA time zone with the runtime's tz data (Intl), for schedules that
 * are due at a local hour: "08:00 in America/New_York" is 13:00 UTC in winter and 12:00 in summer.
 * Local dates are "YYYY-MM-DD" strings; calendar steps on them never touch a zone.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
/** Zones are few (the IANA set), but the key is what callers pass (any casing): a bound on the cache. */
const MAX_FORMATTERS = 1_000;

/** The zone's formatter, built once per isolate (building one is not cheap); throws RangeError for an unknown zone. */
function formatter(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether the runtime knows the IANA zone (its formatter is then cached for the wall-clock readings below). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

function clock(at: Date, timeZone: string) {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The wall clock in the zone at that instant; `weekday` 0 = Sunday .. 6 = Saturday. RangeError for an unknown zone. */
export function wallClock(at: Date, timeZone: string) {
  const w = clock(at, timeZone);
  // the weekday of the local date (cheaper than asking the formatter for it)
  return { ...w, weekday: new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() };
}

/** The zone's offset from UTC at that instant, in milliseconds (local = UTC + offset). */
function offsetMs(at: Date, timeZone: string): number {
  const w = clock(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The local calendar date at that instant. */
export function localDate(at: Date, timeZone: string): string {
  const w = clock(at, timeZone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

export function addDaysToDate(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + days)).toISOString().slice(0, 10);
}

/** ISO weekday of a calendar date: 1 = Monday .. 7 = Sunday. */
export function isoWeekday(date: string): number {
  const [y, m, d] = date.split("-").map(Number);
  return ((new Date(Date.UTC(y!, m! - 1, d!)).getUTCDay() + 6) % 7) + 1;
}

/**
 * The instant the local clock in the zone reads `date` `hour`:00. An hour skipped by a
 * spring-forward change resolves to the instant just after the gap.
 */
export function zonedTimeToUtc(date: string, hour: number, timeZone: string): Date {
  const [y, m, d] = date.split("-").map(Number);
  const wall = Date.UTC(y!, m! - 1, d!, hour);
  const first = wall - offsetMs(new Date(wall), timeZone);
  const second = wall - offsetMs(new Date(first), timeZone);
  if (second === first) return new Date(first);
  // the two guesses straddle a change: take the one whose wall clock reads the hour, else the later
  const reads = (t: number) => clock(new Date(t), timeZone).hour === hour;
  return new Date(reads(second) ? second : reads(first) ? first : Math.max(first, second));
}

// The sentences the cards say: how long something has waited or ago it happened, and what went wrong.
// Calendar days ("yesterday") are the reader's: the host's time zone (hostContext.timeZone), else the
// browser's.

const HOUR = 3_600_000;

let zone: string | undefined;
/** The host's IANA time zone, used for calendar days (an unknown one falls back to the browser's). */
export function useTimeZone(timeZone: string | undefined) {
  try {
    zone = timeZone ? new Intl.DateTimeFormat("en", { timeZone }).resolvedOptions().timeZone : undefined;
  } catch {
    zone = undefined;
  }
}

const dayKey = (t: number) => new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(t);

/** Whole calendar days between two instants in the reader's zone (0: the same day, 1: yesterday). */
function calendarDays(from: number, to: number): number {
  const day = (t: number) => Date.parse(`${dayKey(t)}T00:00:00Z`);
  return Math.round((day(to) - day(from)) / (24 * HOUR));
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

const dateOf = (t: number, now: number) =>
  new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    day: "numeric",
    month: "long",
    ...(dayKey(t).slice(0, 4) === dayKey(now).slice(0, 4) ? {} : { year: "numeric" }),
  }).format(t);

/**
 * When something happened, as a person says it: "less than an hour ago", "3 hours ago", "yesterday",
 * "4 days ago", "on 3 November". Hours while it is under 12 hours old or still today.
 */
export function ago(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  const hours = Math.floor(Math.max(0, now - t) / HOUR);
  const days = calendarDays(t, now);
  if (hours < 1) return "less than an hour ago";
  if (hours < 12 || days === 0) return `${plural(hours, "hour")} ago`;
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return `on ${dateOf(t, now)}`;
}

/** How long something has waited: "for less than an hour", "for 3 hours", "since yesterday", "for 4 days", "since 3 November". */
export function waitingSince(iso: string, now = Date.now()): string {
  const said = ago(iso, now);
  if (said === "yesterday") return "since yesterday";
  if (said.startsWith("on ")) return `since ${said.slice(3)}`;
  return `for ${said.replace(/ ago$/, "")}`;
}

/** A span of time: "less than an hour", "3 hours", "2 days". */
export function span(ms: number): string {
  const hours = Math.floor(Math.max(0, ms) / HOUR);
  if (hours < 1) return "less than an hour";
  return hours < 48 ? plural(hours, "hour") : plural(Math.floor(hours / 24), "day");
}

/** "2026-11-27 03:34 UTC": a due time every reader of the chat reads the same way. */
export const utcTime = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** A tool's refusal as the server writes it (skills/run.ts): {error, code?, details?, issues?, requestId?}. */
export interface Refusal {
  error?: string;
  code?: string;
  details?: { from?: string; to?: string; issues?: { path?: string; message?: string }[] };
  issues?: { path?: string; message?: string }[];
  requestId?: string;
  /** a call that needs a person's confirmation on the console's confirm page (skills/run.ts browserGate) */
  confirmation?: { url: string; question: string; confirmedBy?: string };
}

/** The refusal in a result's first text block (JSON), or the text itself when it is not JSON. */
export function refusalOf(content: { type: string; text?: string }[] | undefined): Refusal {
  const text = content?.find((c) => c.type === "text")?.text;
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Refusal) : { error: text };
  } catch {
    return { error: text };
  }
}

const sentence = (s: string) => {
  const t = s.trim();
  if (!t) return t;
  return `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}`;
};

/** What went wrong, in sentences: never the JSON it came in. */
export function explain(r: Refusal): string {
  const message = r.error?.trim() ?? "";
  switch (r.code) {
    case "NOT_FOUND":
      return `${sentence(`The ${message.replace(/ not found$/i, "").toLowerCase() || "item"} was not found`)} It may have been removed, or this connection cannot see it.`;
    case "FORBIDDEN":
      return `${sentence(`This connection is not allowed to do that: ${message}`)}`;
    case "INVALID_TRANSITION": {
      const { from, to } = r.details ?? {};
      if (from && to)
        return from === to ? `It is already ${to}: nothing to do.` : `It is ${from} now, so it cannot become ${to}.`;
      return sentence(message);
    }
    case "CONFLICT":
      return `${sentence(message)} Someone may have changed it meanwhile; show the card again to see where it stands.`;
    case "RATE_LIMITED":
      return "Too many requests right now. Try again in a minute.";
  }
  const issues = r.issues ?? r.details?.issues;
  if (issues?.length)
    return sentence(
      `That was not accepted: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`,
    );
  if (r.requestId)
    return `Something went wrong on the server. Try again; if it keeps failing, give support the request id ${r.requestId}.`;
  return message ? sentence(message) : "The tool did not succeed, and said nothing more.";
}

/** UTC calendar days as YYYY-MM-DD strings (the rollups' `day`). */

export const DAY_MS = 86_400_000;

export const dayOf = (iso: string | Date): string =>
  (typeof iso === "string" ? new Date(iso) : iso).toISOString().slice(0, 10);

export const addDaysTo = (day: string, n: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

export const nextDay = (day: string) => addDaysTo(day, 1);

/** Inclusive number of days from `from` to `to`. */
export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;

import { z } from "@hono/zod-openapi";

/*
 * Windows of whole UTC days ("YYYY-MM-DD"), as the agents and the reads they call take them
 * (dateFrom/dateTo inputs, a default window ending today).
 */

const DAY = 86_400_000;

/** A window of UTC days, both ends included. */
export interface DayRange {
  from: string;
  to: string;
}

export const today = () => new Date().toISOString().slice(0, 10);
export const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + n * DAY).toISOString().slice(0, 10);
export const daysIn = (r: DayRange) => Math.round((Date.parse(r.to) - Date.parse(r.from)) / DAY) + 1;

/** dateFrom/dateTo inputs -> the window, default the `days` ending today. */
export function rangeOf(input: { dateFrom?: string; dateTo?: string }, days = 90): DayRange {
  const to = input.dateTo ?? today();
  const from = input.dateFrom ?? addDays(to, -(days - 1));
  return from <= to ? { from, to } : { from: to, to: from };
}

/** The dateFrom/dateTo inputs of a read over a window of days (agents' tools). */
export const dayRangeInput = {
  dateFrom: z.iso.date().optional().describe("first UTC day"),
  dateTo: z.iso.date().optional().describe("last UTC day"),
};

import { env } from "cloudflare:workers";
import { and, eq, isNotNull, min } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { alertSubscriptions } from "../../src/db/schema";
import { zonedTimeToUtc } from "../../src/lib/zoned-time";
import { sendDueDigests } from "../../src/modules/alerts/digest-sweep";
import { nextDue } from "../../src/modules/alerts/schedule";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation } from "../reviews/helpers";
import { sendsOf, subscribe } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const FIVE_MIN = 5 * 60_000;
const NY = "America/New_York";

/**
 * The earliest nextDigestAt the sweep would select (its own filter: active, not null), any subscription's,
 * or null when it would select none.
 */
async function earliestDue(): Promise<number | null> {
  const row = await db()
    .select({ at: min(alertSubscriptions.nextDigestAt) })
    .from(alertSubscriptions)
    .where(and(isNotNull(alertSubscriptions.nextDigestAt), eq(alertSubscriptions.isActive, true)))
    .get();
  return row?.at ? Date.parse(row.at) : null;
}

/**
 * Runs the sweep every 5 minutes of simulated time, as the frequent cron does, over [from, to) and
 * returns the instants at which it sent this subscription a digest.
 *
 * The ticks before the earliest due row are skipped, not run: a sweep at `t` selects only rows with
 * nextDigestAt <= t (sendDueDigests), so while every row's nextDigestAt is later than t it selects nothing,
 * writes nothing and returns all zeros, and the state the next tick sees is the one this tick saw. The
 * next tick run is the first 5-minute tick of the same grid at or after the earliest due row, read again
 * after every sweep (a sweep moves rows on), so every sweep that could select a row still runs, at the
 * same instant as before: ~10 sweeps instead of 1,152 over four days.
 */
async function sweepEvery5Minutes(subscriptionId: string, from: string, to: string) {
  const sentAt: string[] = [];
  let before = (await sendsOf(subscriptionId)).length;
  const start = Date.parse(from);
  for (let t = start; t < Date.parse(to); t += FIVE_MIN) {
    const due = await earliestDue();
    if (due === null) break;
    if (due > t) {
      t = start + Math.ceil((due - start) / FIVE_MIN) * FIVE_MIN;
      if (t >= Date.parse(to)) break;
    }
    const out = await sendDueDigests(env, db(), new Date(t));
    if (out.sent + out.skipped === 0) continue;
    const now = (await sendsOf(subscriptionId)).length;
    if (now > before) sentAt.push(new Date(t).toISOString());
    before = now;
  }
  return sentAt;
}

async function dailyAt8InNewYork(from: string) {
  const loc = await newLocation(w, "manager", { timezone: NY });
  const sub = await subscribe(w, "manager", {
    locationId: loc.id,
    instantEmail: false,
    digestFrequency: "daily",
    digestHour: 8,
  });
  expect(sub.timeZone).toBe(NY);
  // the schedule as it stood at the start of the simulated days
  const first = nextDue({ digestFrequency: "daily", digestHour: 8, digestWeekday: 1, timeZone: NY }, new Date(from))!;
  await db()
    .update(alertSubscriptions)
    .set({ nextDigestAt: first.at.toISOString() })
    .where(eq(alertSubscriptions.id, sub.id));
  return sub;
}

describe("a daily digest due at 08:00 America/New_York across DST changes", () => {
  it("spring forward (2026-03-08): one digest per local day, at 08:00 EST then 08:00 EDT", async () => {
    const sub = await dailyAt8InNewYork("2026-03-06T00:00:00Z");
    const sentAt = await sweepEvery5Minutes(sub.id, "2026-03-06T00:00:00Z", "2026-03-10T00:00:00Z");
    expect(sentAt).toEqual([
      "2026-03-06T13:00:00.000Z",
      "2026-03-07T13:00:00.000Z",
      "2026-03-08T12:00:00.000Z",
      "2026-03-09T12:00:00.000Z",
    ]);
    const sends = await sendsOf(sub.id);
    expect(sends.map((s) => s.key).sort()).toEqual([
      "daily:2026-03-06",
      "daily:2026-03-07",
      "daily:2026-03-08",
      "daily:2026-03-09",
    ]);
    // the day of the change is 23 hours long
    const changeDay = sends.find((s) => s.key === "daily:2026-03-08")!;
    expect([changeDay.periodStart, changeDay.periodEnd]).toEqual([
      "2026-03-07T13:00:00.000Z",
      "2026-03-08T12:00:00.000Z",
    ]);
  });

  it("fall back (2026-11-01): one digest per local day, at 08:00 EDT then 08:00 EST; the 25-hour day is one period", async () => {
    const sub = await dailyAt8InNewYork("2026-10-30T00:00:00Z");
    const sentAt = await sweepEvery5Minutes(sub.id, "2026-10-30T00:00:00Z", "2026-11-03T00:00:00Z");
    expect(sentAt).toEqual([
      "2026-10-30T12:00:00.000Z",
      "2026-10-31T12:00:00.000Z",
      "2026-11-01T13:00:00.000Z",
      "2026-11-02T13:00:00.000Z",
    ]);
    const changeDay = (await sendsOf(sub.id)).find((s) => s.key === "daily:2026-11-01")!;
    expect([changeDay.periodStart, changeDay.periodEnd]).toEqual([
      "2026-10-31T12:00:00.000Z",
      "2026-11-01T13:00:00.000Z",
    ]);
  });

  it("two sweeps at the same due moment send one digest; a sweep down for two days sends only the latest", async () => {
    const sub = await dailyAt8InNewYork("2026-03-08T00:00:00Z");
    const due = new Date("2026-03-08T12:00:00Z");
    const runs = await Promise.all([
      sendDueDigests(env, db(), due),
      sendDueDigests(env, db(), due),
      sendDueDigests(env, db(), due),
    ]);
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(1);
    expect((await sendsOf(sub.id)).map((s) => s.key)).toEqual(["daily:2026-03-08"]);
    // nothing runs on the 9th and 10th; on the 11th at 09:30 local only the 11th's digest goes out
    await sendDueDigests(env, db(), new Date("2026-03-11T13:30:00Z"));
    expect((await sendsOf(sub.id)).map((s) => s.key).sort()).toEqual(["daily:2026-03-08", "daily:2026-03-11"]);
    const row = (await db().select().from(alertSubscriptions).where(eq(alertSubscriptions.id, sub.id)).get())!;
    expect(row.nextDigestAt).toBe("2026-03-12T12:00:00.000Z");
  });

  it("wall-clock conversion: a skipped hour resolves after the gap; weekly digests land on their weekday", () => {
    expect(zonedTimeToUtc("2026-03-08", 2, NY).toISOString()).toBe("2026-03-08T07:00:00.000Z");
    expect(["2026-11-01T05:00:00.000Z", "2026-11-01T06:00:00.000Z"]).toContain(
      zonedTimeToUtc("2026-11-01", 1, NY).toISOString(),
    );
    expect(zonedTimeToUtc("2026-07-01", 8, "Asia/Kolkata").toISOString()).toBe("2026-07-01T02:30:00.000Z");
    // Friday 17:00 in Sydney, asked on a Friday evening there: the next Friday
    const weekly = nextDue(
      { digestFrequency: "weekly", digestHour: 17, digestWeekday: 5, timeZone: "Australia/Sydney" },
      new Date("2026-04-03T08:00:00Z"),
    );
    expect(weekly!.date).toBe("2026-04-10");
    expect(weekly!.at.toISOString()).toBe("2026-04-10T07:00:00.000Z");
  });
});

import { describe, expect, it } from "vitest";
import { isTimeZone, localDate, wallClock } from "../../src/lib/zoned-time";

describe("one zone check and one formatter cache (src/lib/zoned-time.ts)", () => {
  it("knows IANA zones and refuses made-up ones, the same answer when asked again (cached)", () => {
    for (const _ of [1, 2]) {
      const known = ["America/New_York", "Europe/Berlin", "UTC", "Asia/Kolkata"];
      expect(known.map(isTimeZone)).toEqual([true, true, true, true]);
      expect(["Mars/Olympus", "", "America/Nowhere"].map(isTimeZone)).toEqual([false, false, false]);
    }
  });

  it("reads the wall clock with its weekday, across a DST change", () => {
    // 2026-03-08 07:30 UTC: 03:30 EDT on the Sunday New York springs forward (02:00 EST became 03:00)
    expect(wallClock(new Date("2026-03-08T07:30:15Z"), "America/New_York")).toEqual({
      year: 2026,
      month: 3,
      day: 8,
      hour: 3,
      minute: 30,
      second: 15,
      weekday: 0,
    });
    // midnight is hour 0 (h23), a Monday in Berlin while it is still Sunday in UTC
    const berlin = wallClock(new Date("2026-03-08T23:00:00Z"), "Europe/Berlin");
    expect(berlin).toMatchObject({ day: 9, hour: 0, minute: 0, weekday: 1 });
    expect(localDate(new Date("2026-03-08T23:00:00Z"), "Europe/Berlin")).toBe("2026-03-09");
  });

  it("throws for an unknown zone instead of guessing one", () => {
    expect(() => wallClock(new Date(), "Mars/Olympus")).toThrow(RangeError);
  });
});

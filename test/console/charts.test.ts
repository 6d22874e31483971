import { expect, it } from "vitest";
import { lastMondays, TrendChart } from "../../src/modules/console/charts";

// The home page draws its trend chart on every load; each week's label was formatted with a date formatter
// built for that one label (~1 ms of CPU apiece, two labels a week), the console's largest self time in a
// profile of test/console/matrix.test.ts (docs/performance.md).

it("labels each week of the trend chart (Mon D, UTC) without building a date formatter per label", async () => {
  const weeks = lastMondays(new Date("2026-11-28T12:00:00Z"), 12).map((period, i) => ({
    period,
    count: i,
    averageRating: i % 2 ? 4.5 : null,
  }));
  const Original = Intl.DateTimeFormat;
  let built = 0;
  (Intl as { DateTimeFormat: unknown }).DateTimeFormat = new Proxy(Original, {
    construct: (target, args, newTarget) => {
      built++;
      return Reflect.construct(target, args, newTarget);
    },
  });
  let html: string;
  try {
    html = String(await TrendChart({ weeks, id: "t" }).toString());
  } finally {
    (Intl as { DateTimeFormat: unknown }).DateTimeFormat = Original;
  }
  // at most the one formatter the module keeps (none when an earlier render in this isolate built it)
  expect(built).toBeLessThanOrEqual(1);
  const rows = [...html.matchAll(/<th scope="row">([^<]+)<\/th>/g)].map((m) => m[1]);
  expect(rows).toEqual([
    "Sep 7",
    "Sep 14",
    "Sep 21",
    "Sep 28",
    "Oct 5",
    "Oct 12",
    "Oct 19",
    "Oct 26",
    "Nov 2",
    "Nov 9",
    "Nov 16",
    "Nov 23",
  ]);
  // the axis: every third week and the last
  const axis = [...html.matchAll(/text-anchor="middle">([^<]+)<\/text>/g)].map((m) => m[1]);
  expect(axis).toEqual(["Sep 7", "Sep 28", "Oct 19", "Nov 9", "Nov 23"]);
});

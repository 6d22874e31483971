/** @jsxImportSource hono/jsx */

/*
 * Charts drawn on the server as SVG (docs/console.md, "Home"): readable without script, styled by the
 * stylesheet's classes (no style attributes), each with its figures as a table for screen readers and for
 * anyone who prefers numbers.
 */

const DAY_MS = 86_400_000;

/** The Mondays (YYYY-MM-DD, UTC) of the last `weeks` weeks, oldest first, this week's last. */
export function lastMondays(now: Date, weeks: number): string[] {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monday = day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS;
  return Array.from({ length: weeks }, (_, i) =>
    new Date(monday - (weeks - 1 - i) * 7 * DAY_MS).toISOString().slice(0, 10),
  );
}

export interface WeekPoint {
  period: string;
  count: number;
  averageRating: number | null;
}

let dayFormat: Intl.DateTimeFormat | undefined;
/**
 * The labels' formatter, built once per isolate on the first chart (not at start-up): building one costs about
 * a millisecond of CPU, and a chart has two labels a week.
 */
const dayFormatter = () =>
  (dayFormat ??= new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" }));

/** "Nov 23" for a YYYY-MM-DD day. */
const shortDay = (day: string) => dayFormatter().format(new Date(`${day}T00:00:00Z`));

/** Weekly reviews (bars) and their average rating (line, 1 to 5 stars), one point per Monday. */
export function TrendChart({ weeks, id }: { weeks: WeekPoint[]; id: string }) {
  const W = 560;
  const H = 200;
  const pad = { l: 34, r: 34, t: 12, b: 28 };
  const plotW = W - pad.l - pad.r;
  const plotH = H - pad.t - pad.b;
  const maxCount = Math.max(1, ...weeks.map((w) => w.count));
  const step = plotW / weeks.length;
  const barW = Math.max(4, step * 0.6);
  const x = (i: number) => pad.l + step * i + step / 2;
  const yCount = (n: number) => pad.t + plotH - (n / maxCount) * plotH;
  const yRating = (r: number) => pad.t + plotH - ((r - 1) / 4) * plotH;
  const rated = weeks.map((w, i) => [i, w.averageRating] as const).filter((p): p is [number, number] => p[1] !== null);
  const line = rated.map(([i, r], k) => `${k === 0 ? "M" : "L"}${x(i).toFixed(1)},${yRating(r).toFixed(1)}`).join(" ");
  const total = weeks.reduce((n, w) => n + w.count, 0);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title ${id}-desc`}>
        <title id={`${id}-title`}>Reviews and average rating per week, last {weeks.length} weeks</title>
        <desc id={`${id}-desc`}>
          {total} reviews in {weeks.length} weeks. The table after the chart lists each week.
        </desc>
        <line class="chart-axis" x1={pad.l} y1={pad.t + plotH} x2={W - pad.r} y2={pad.t + plotH} />
        {weeks.map((w, i) => (
          <rect
            class="chart-bar"
            x={(x(i) - barW / 2).toFixed(1)}
            y={yCount(w.count).toFixed(1)}
            width={barW.toFixed(1)}
            height={(pad.t + plotH - yCount(w.count)).toFixed(1)}
          />
        ))}
        {line && <path class="chart-line" d={line} />}
        {rated.map(([i, r]) => (
          <circle class="chart-dot" cx={x(i).toFixed(1)} cy={yRating(r).toFixed(1)} r="3.5" />
        ))}
        <text class="chart-label" x={pad.l - 6} y={pad.t + 4} text-anchor="end">
          {maxCount}
        </text>
        <text class="chart-label" x={pad.l - 6} y={pad.t + plotH} text-anchor="end">
          0
        </text>
        <text class="chart-label" x={W - pad.r + 6} y={pad.t + 4}>
          5★
        </text>
        <text class="chart-label" x={W - pad.r + 6} y={pad.t + plotH}>
          1★
        </text>
        {weeks.map((w, i) =>
          i % 3 === 0 || i === weeks.length - 1 ? (
            <text class="chart-label" x={x(i).toFixed(1)} y={H - 8} text-anchor="middle">
              {shortDay(w.period)}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption>Bars: reviews per week (left scale). Line: average rating (right scale, 1 to 5 stars).</figcaption>
      <details>
        <summary>The figures as a table</summary>
        <table class="figures">
          <caption class="vh">Reviews and average rating per week</caption>
          <thead>
            <tr>
              <th scope="col">Week of</th>
              <th scope="col">Reviews</th>
              <th scope="col">Average rating</th>
            </tr>
          </thead>
          <tbody>
            {weeks.map((w) => (
              <tr>
                <th scope="row">{shortDay(w.period)}</th>
                <td>{w.count}</td>
                <td>{w.averageRating === null ? "none" : w.averageRating.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

export interface FunnelStep {
  label: string;
  value: number;
}

/** The request funnel as bars, each step's share of the first. */
export function FunnelChart({ steps, id }: { steps: FunnelStep[]; id: string }) {
  const W = 560;
  const rowH = 34;
  const labelW = 120;
  const H = steps.length * rowH + 4;
  const first = Math.max(1, steps[0]?.value ?? 0);
  const share = (v: number) => (steps[0]?.value ? `${Math.round((v / first) * 100)}%` : "none");
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{steps.map((s) => `${s.label}: ${s.value}`).join(", ")}</title>
        {steps.map((s, i) => {
          const y = i * rowH + 4;
          const w = ((W - labelW - 70) * s.value) / first;
          return (
            <g>
              <text class="chart-label" x="0" y={y + 19}>
                {s.label}
              </text>
              <rect class="funnel-rest" x={labelW} y={y} width={W - labelW - 70} height={rowH - 10} />
              <rect class="funnel-bar" x={labelW} y={y} width={w.toFixed(1)} height={rowH - 10} />
              <text class="chart-label" x={W - 64} y={y + 19}>
                {s.value} ({share(s.value)})
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

export interface RateBar {
  label: string;
  /** 0 to 1, or null when there is nothing to rate yet */
  rate: number | null;
}

/** Rates side by side (an experiment's variants), each bar's length its rate against the highest. */
export function RateChart({ bars, id, title }: { bars: RateBar[]; id: string; title: string }) {
  const W = 560;
  const rowH = 34;
  const labelW = 150;
  const H = bars.length * rowH + 4;
  const top = Math.max(0.0001, ...bars.map((b) => b.rate ?? 0));
  const text = (r: number | null) => (r === null ? "none yet" : `${(r * 100).toFixed(1)}%`);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{`${title}: ${bars.map((b) => `${b.label} ${text(b.rate)}`).join(", ")}`}</title>
        {bars.map((b, i) => {
          const y = i * rowH + 4;
          const w = ((W - labelW - 80) * (b.rate ?? 0)) / top;
          return (
            <g>
              <text class="chart-label" x="0" y={y + 19}>
                {b.label.length > 22 ? `${b.label.slice(0, 21)}…` : b.label}
              </text>
              <rect class="funnel-rest" x={labelW} y={y} width={W - labelW - 80} height={rowH - 10} />
              <rect class="funnel-bar" x={labelW} y={y} width={w.toFixed(1)} height={rowH - 10} />
              <text class="chart-label" x={W - 74} y={y + 19}>
                {text(b.rate)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}

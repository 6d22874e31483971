import type { HostBridge } from "./bridge";
import { h, show } from "./dom";

// The location score card: the score and its components from score.location, then, through the host,
// review.summary twice (the last 30 days against the last year: the rating trend) and inbox.list of
// the location's new reviews (the replies due). Those are read tools the caller's scopes allow or not.

interface Snapshot {
  locationId: string;
  day: string;
  score: number;
  components: Record<string, number>;
  inputs: Record<string, unknown>;
}

const COMPONENT_LABELS: Record<string, string> = {
  rating: "Rating",
  velocity: "Review velocity",
  sentiment: "Sentiment",
  responseHealth: "Response health",
  platformDiversity: "Platform diversity",
};

function meter(label: string, value: number) {
  const v = Math.round(value);
  return h(
    "div",
    { class: "meter-row" },
    h("span", {}, label),
    h("meter", { min: "0", max: "100", value: String(v), "aria-label": `${label}: ${v} of 100` }),
    h("span", { class: "num" }, String(v)),
  );
}

const num = (x: unknown) => (typeof x === "number" ? x : 0);

function sentimentLine(inputs: Record<string, unknown>) {
  const p = num(inputs.positive90);
  const n = num(inputs.neutral90);
  const neg = num(inputs.negative90);
  return h("p", {}, `Last 90 days: ${p} positive, ${n} neutral, ${neg} negative`);
}

/** Reads one tool through the host; null when it is refused (scope) or fails. */
async function read(
  host: HostBridge,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown> | null> {
  try {
    const r = await host.callTool(name, args);
    return r.isError ? null : ((r.structuredContent as Record<string, unknown>) ?? null);
  } catch {
    return null;
  }
}

export function renderScore(host: HostBridge, structured: unknown) {
  const s = structured as Snapshot | undefined;
  if (!s || typeof s.score !== "number") return show(h("p", { class: "muted" }, "No score for this location yet."));
  const trend = h("p", { id: "trend" }, "Rating trend: loading…");
  const due = h("p", { id: "due" }, "Replies due: loading…");
  show(
    h("h1", {}, "Location score"),
    h("p", { class: "score", "aria-label": `Score ${s.score} of 100` }, h("strong", {}, String(s.score)), " / 100"),
    h("p", { class: "muted" }, `as of ${s.day}`),
    h(
      "section",
      { "aria-label": "Components" },
      ...Object.entries(s.components).map(([k, v]) => meter(COMPONENT_LABELS[k] ?? k, v)),
    ),
    h("section", { "aria-label": "Sentiment" }, h("h2", {}, "Sentiment"), sentimentLine(s.inputs ?? {})),
    trend,
    due,
  );
  void fillTrend(host, s.locationId, trend);
  void fillDue(host, s.locationId, due);
}

async function fillTrend(host: HostBridge, locationId: string, out: HTMLElement) {
  const since = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
  const [recent, year] = await Promise.all([
    read(host, "review.summary", { locationId, since: since(30) }),
    read(host, "review.summary", { locationId, since: since(365) }),
  ]);
  const r = recent?.averageRating;
  const y = year?.averageRating;
  if (typeof r !== "number" || typeof y !== "number") {
    out.textContent = "Rating trend: not available";
    return;
  }
  const arrow = r > y + 0.05 ? "rising ▲" : r < y - 0.05 ? "falling ▼" : "steady ▶";
  out.textContent = `Rating trend: ${r.toFixed(2)} in the last 30 days against ${y.toFixed(2)} over the year (${arrow})`;
}

async function fillDue(host: HostBridge, locationId: string, out: HTMLElement) {
  const page = await read(host, "inbox.list", { locationId, type: "review", status: "new", limit: 100 });
  const items = page?.data;
  out.textContent = Array.isArray(items)
    ? `Replies due: ${items.length}${items.length === 100 ? "+" : ""} new review${items.length === 1 ? "" : "s"} without a reply`
    : "Replies due: not available";
}

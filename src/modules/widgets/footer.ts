import type { WidgetOrder } from "../../db/schema";

const SITE_LABELS: Record<string, string> = {
  google: "Google",
  yelp: "Yelp",
  facebook: "Facebook",
  tripadvisor: "Tripadvisor",
  trustpilot: "Trustpilot",
  first_party: "verified customer",
};

export const siteLabel = (site: string) =>
  SITE_LABELS[site] ?? site.replace(/_/g, " ").replace(/^\w/, (c) => c.toUpperCase());

const list = (items: string[]) =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;

/**
 * The widget's disclosure of its own filters, printed under the reviews (decided: a widget never
 * hides that it is a selection). E.g. "Showing 5★ and 4★ Google reviews, newest first".
 */
export function filterFooter(f: { minRating: number; sites: string[]; order: WidgetOrder }): string {
  const stars = f.minRating <= 1 ? "" : `${list(Array.from({ length: 6 - f.minRating }, (_, i) => `${5 - i}★`))} `;
  const sites = f.sites.length ? `${list(f.sites.map(siteLabel))} ` : "";
  const scope =
    f.minRating <= 1 && !f.sites.length ? "reviews of every rating from every site" : `${stars}${sites}reviews`;
  return `Showing ${scope}, ${f.order === "best" ? "highest rated first" : "newest first"}`;
}

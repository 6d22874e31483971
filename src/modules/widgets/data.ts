import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import type { ControlDb, ShardDb } from "../../db/client";
import { locations, reviews, tenants, type WidgetOrder, widgets } from "../../db/schema";
import { inJson } from "../../lib/sql";
import { safeHexColor } from "../white-label/render";
import { tenantWhiteLabel } from "../white-label/resolve";
import { filterFooter } from "./footer";

export interface ShowcaseReview {
  id: string;
  rating: number;
  text: string | null;
  authorName: string | null;
  site: string;
  isFirstParty: boolean;
  publishedAt: string;
  url: string | null;
}

/** Everything the public widget shows; cached as is (no personal data beyond what the review sites show). */
export interface WidgetData {
  key: string;
  title: string;
  filters: { minRating: number; sites: string[]; count: number; order: WidgetOrder };
  footer: string;
  /** over every public rated review of the widget's place and sites, whatever minRating: the honest average */
  summary: { averageRating: number | null; reviewCount: number };
  reviews: ShowcaseReview[];
  /** schema.org JSON-LD for the first-party reviews shown (null when none) */
  jsonLd: Record<string, unknown> | null;
  /** the tenant's or its agency's white label (colours validated); null for the platform default, which shows no brand */
  brand: WidgetBrand | null;
}

export interface WidgetBrand {
  name: string;
  primaryColor: string | null;
  accentColor: string | null;
}

const round1 = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10);
const isFirstParty = sql`(${reviews.isFirstParty} = 1 or ${reviews.siteType} = 'first_party')`;

/** The widget's data from D1 (4 reads in one batch after the config); null when unknown or deactivated. */
export const loadWidgetData = async (db: ShardDb, key: string, control: ControlDb): Promise<WidgetData | null> =>
  (await loadOwnedWidget(db, key, control))?.data ?? null;

/** The widget's data and the tenant that owns it (kept out of the public JSON: the host guard needs it, visitors do not). */
export interface OwnedWidget {
  tenantId: string;
  data: WidgetData;
}

/** `db`: the shard holding the widget; `control`: the control plane, for the white label. */
export async function loadOwnedWidget(db: ShardDb, key: string, control: ControlDb): Promise<OwnedWidget | null> {
  const w = await db
    .select({
      widget: widgets,
      locationName: sql<string | null>`${locations.name}`.as("location_name"),
      tenantName: sql<string>`${tenants.name}`.as("tenant_name"),
    })
    .from(widgets)
    .innerJoin(tenants, eq(tenants.id, widgets.tenantId))
    .leftJoin(locations, and(eq(locations.id, widgets.locationId), eq(locations.tenantId, widgets.tenantId)))
    .where(eq(widgets.publicKey, key))
    .get();
  if (!w?.widget.isActive) return null;
  const cfg = w.widget;
  const scope: (SQL | undefined)[] = [
    eq(reviews.tenantId, cfg.tenantId),
    cfg.locationId ? eq(reviews.locationId, cfg.locationId) : undefined,
    eq(reviews.isPublic, true),
    sql`${reviews.rating} is not null`,
    cfg.sites.length ? inJson(reviews.siteType, cfg.sites) : undefined,
  ];
  const order =
    cfg.order === "best"
      ? [desc(reviews.rating), desc(reviews.occurredAt), desc(reviews.id)]
      : [desc(reviews.occurredAt), desc(reviews.id)];
  const whiteLabel = await tenantWhiteLabel(control, cfg.tenantId);
  const [shown, summary, firstParty] = await db.batch([
    db
      .select({
        id: reviews.id,
        rating: reviews.rating,
        text: reviews.text,
        authorName: reviews.authorName,
        site: reviews.siteType,
        isFirstParty: sql<number>`${isFirstParty}`.as("first_party"),
        publishedAt: reviews.occurredAt,
        url: reviews.externalUrl,
      })
      .from(reviews)
      .where(and(...scope, sql`${reviews.rating} >= ${cfg.minRating}`))
      .orderBy(...order)
      .limit(cfg.count),
    db
      .select({ n: sql<number>`count(*)`, avg: sql<number | null>`avg(${reviews.rating})` })
      .from(reviews)
      .where(and(...scope)),
    db
      .select({ n: sql<number>`count(*)`, avg: sql<number | null>`avg(${reviews.rating})` })
      .from(reviews)
      .where(and(...scope, isFirstParty)),
  ]);
  const place = w.locationName ?? w.tenantName;
  const list: ShowcaseReview[] = shown.map((r) => ({
    ...r,
    rating: r.rating!,
    isFirstParty: Boolean(r.isFirstParty),
    url: r.url && /^https?:\/\//i.test(r.url) ? r.url : null,
  }));
  const filters = { minRating: cfg.minRating, sites: cfg.sites, count: cfg.count, order: cfg.order };
  return {
    tenantId: cfg.tenantId,
    data: {
      key,
      title: place,
      filters,
      footer: filterFooter(filters),
      summary: { averageRating: round1(summary[0]?.avg ?? null), reviewCount: summary[0]?.n ?? 0 },
      reviews: list,
      jsonLd: firstPartyJsonLd(
        place,
        list.filter((r) => r.isFirstParty),
        firstParty[0] ?? { n: 0, avg: null },
      ),
      brand: widgetBrand(whiteLabel?.brand),
    },
  };
}

function widgetBrand(
  brand: { name: string; primaryColor: string | null; accentColor: string | null; source: string } | undefined,
): WidgetBrand | null {
  if (!brand || brand.source === "default") return null;
  return {
    name: brand.name,
    primaryColor: safeHexColor(brand.primaryColor),
    accentColor: safeHexColor(brand.accentColor),
  };
}

/**
 * schema.org markup for reviews this service collected itself (first party) and no other: Google's
 * review snippet guidelines forbid marking up reviews taken from other sites (Google, Yelp, ...),
 * and treat a business's reviews of itself as self-serving (no stars shown for LocalBusiness or
 * Organization either way). See docs/widgets.md.
 */
function firstPartyJsonLd(
  place: string,
  shown: ShowcaseReview[],
  all: { n: number; avg: number | null },
): Record<string, unknown> | null {
  if (!shown.length || !all.n || all.avg === null) return null;
  return {
    "@context": "https://schema.org",
    "@type": "LocalBusiness",
    name: place,
    aggregateRating: {
      "@type": "AggregateRating",
      ratingValue: round1(all.avg),
      reviewCount: all.n,
      bestRating: 5,
      worstRating: 1,
    },
    review: shown.map((r) => ({
      "@type": "Review",
      reviewRating: { "@type": "Rating", ratingValue: r.rating, bestRating: 5, worstRating: 1 },
      author: { "@type": "Person", name: r.authorName ?? "Verified customer" },
      datePublished: r.publishedAt.slice(0, 10),
      ...(r.text ? { reviewBody: r.text } : {}),
    })),
  };
}

/** The public keys of the active widgets that may show reviews of this location (its own and the tenant-wide ones). */
export async function widgetKeysFor(
  db: ShardDb,
  pairs: { tenantId: string; locationId: string | null }[],
): Promise<string[]> {
  if (!pairs.length) return [];
  const rows = await db
    .select({ key: widgets.publicKey })
    .from(widgets)
    .where(
      sql`exists (select 1 from json_each(${JSON.stringify(pairs)}) p
        where json_extract(p.value, '$.tenantId') = ${widgets.tenantId}
          and (${widgets.locationId} is null or ${widgets.locationId} = json_extract(p.value, '$.locationId')))`,
    )
    .orderBy(asc(widgets.publicKey));
  return rows.map((r) => r.key);
}

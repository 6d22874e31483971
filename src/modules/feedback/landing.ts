import { and, eq, sql } from "drizzle-orm";
import type { ControlDb, ShardDb } from "../../db/client";
import {
  brands,
  campaignSurveys,
  feedbackViews,
  locations,
  type SurveyQuestion,
  type SurveyType,
  solicitations,
  surveys,
} from "../../db/schema";
import { controlDb, shardDb, tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { notFound } from "../../lib/errors";
import type { HostGuard } from "../../lib/host-guard";
import { jwtSecrets } from "../../lib/jwt";
import { nowIso } from "../../lib/time";
import { writeBuffer } from "../../lib/write-buffer";
import { type LinkClaims, readLinkToken } from "../links/tokens";
import { type EffectiveBrand, publicBaseUrlOf, tenantWhiteLabel } from "../white-label/resolve";
import { cached } from "./cache";
import { publicReviewLinks, type ReviewLink } from "./review-links";

export interface LocationLanding {
  brand: { name: string; logoUrl: string | null };
  location: { id: string; name: string; city: string | null; state: string | null; phone: string | null };
  reviewLinks: ReviewLink[];
}

export interface LandingSurvey {
  id: string;
  name: string;
  type: SurveyType;
  description: string | null;
  questions: SurveyQuestion[];
}

export interface Landing extends LocationLanding {
  survey: LandingSurvey | null;
  /** the white-label brand of the link's tenant (colours, footer) */
  whiteLabel: EffectiveBrand;
  /** where the tenant's links live: its custom hostname, else PUBLIC_BASE_URL */
  publicBaseUrl: string;
}

/** What a public request needs: the control database (the token names the tenant, whose shard is looked up), the token secret, and waitUntil. */
export interface PublicDeps {
  control: ControlDb;
  env: Env;
  defer: (p: Promise<unknown>) => void;
  /** the request's host guard: a custom hostname serves only its own tenants' pages (middleware/public-host.ts) */
  admit: HostGuard;
}

/** The token's claims, or 404: a forged, truncated or foreign token costs one HMAC and no D1 read. */
export async function claimsOf(env: Env, token: string): Promise<LinkClaims> {
  const claims = env.JWT_SECRET ? await readLinkToken(jwtSecrets(env), token) : null;
  if (!claims) throw notFound("Feedback link");
  return claims;
}

async function loadLocation(db: ShardDb, tenantId: string, locationId: string): Promise<LocationLanding | null> {
  const row = await db
    .select({
      location: locations,
      brandName: sql<string | null>`${brands.name}`.as("brand_name"),
      brandLogo: brands.logoUrl,
      brandGooglePlaceId: sql<string | null>`${brands.googlePlaceId}`.as("brand_google_place_id"),
      brandGoogleUrl: sql<string | null>`${brands.googleMyBusinessUrl}`.as("brand_google_url"),
      brandYelpId: sql<string | null>`${brands.yelpBusinessId}`.as("brand_yelp_id"),
      brandYelpUrl: sql<string | null>`${brands.yelpUrl}`.as("brand_yelp_url"),
      brandFacebookId: sql<string | null>`${brands.facebookPageId}`.as("brand_facebook_id"),
      brandFacebookUrl: sql<string | null>`${brands.facebookUrl}`.as("brand_facebook_url"),
    })
    .from(locations)
    .leftJoin(brands, eq(brands.id, locations.brandId))
    .where(and(eq(locations.id, locationId), eq(locations.tenantId, tenantId)))
    .get();
  if (!row) return null;
  const l = row.location;
  const brandRefs = {
    googlePlaceId: row.brandGooglePlaceId,
    googleMyBusinessUrl: row.brandGoogleUrl,
    yelpBusinessId: row.brandYelpId,
    yelpUrl: row.brandYelpUrl,
    facebookPageId: row.brandFacebookId,
    facebookUrl: row.brandFacebookUrl,
  };
  return {
    brand: { name: row.brandName ?? l.name, logoUrl: row.brandLogo },
    location: { id: l.id, name: l.name, city: l.city, state: l.state, phone: l.phone },
    reviewLinks: publicReviewLinks(l, brandRefs),
  };
}

/** The active survey attached to the solicitation's campaign, if any. */
async function loadSurvey(db: ShardDb, tenantId: string, solicitationId: string): Promise<LandingSurvey | null> {
  const row = await db
    .select({
      id: surveys.id,
      name: surveys.name,
      type: surveys.type,
      description: surveys.description,
      questions: surveys.questions,
    })
    .from(solicitations)
    .innerJoin(campaignSurveys, eq(campaignSurveys.campaignId, solicitations.campaignId))
    .innerJoin(surveys, eq(surveys.id, campaignSurveys.surveyId))
    .where(
      and(eq(solicitations.id, solicitationId), eq(solicitations.tenantId, tenantId), eq(surveys.status, "active")),
    )
    .get();
  return row ?? null;
}

/**
 * The landing data of a feedback link. Location and brand come from the per-location cache; only
 * links whose campaign sends people to a survey (destination `survey`) look up the survey, cached
 * per solicitation. Other links read nothing from D1 once the location is cached.
 */
export async function landingFor(deps: PublicDeps, claims: LinkClaims): Promise<Landing> {
  await deps.admit(claims.tenantId);
  // tenant rows on the tenant's shard (resolved only on a cache miss), white-label rows on the control plane
  const db = () => tenantDb(deps.env, claims.tenantId);
  const [place, survey, wl] = await Promise.all([
    cached(
      `location/${claims.tenantId}/${claims.locationId}`,
      async () => loadLocation(await db(), claims.tenantId, claims.locationId),
      deps.defer,
    ),
    claims.destination === "survey"
      ? cached(
          `survey/${claims.tenantId}/${claims.solicitationId}`,
          async () => loadSurvey(await db(), claims.tenantId, claims.solicitationId),
          deps.defer,
        )
      : Promise.resolve(null),
    tenantWhiteLabel(controlDb(deps.env), claims.tenantId),
  ]);
  if (!place || !wl) throw notFound("Feedback link");
  return { ...place, survey, whiteLabel: wl.brand, publicBaseUrl: publicBaseUrlOf(deps.env, wl) };
}

// ---- landing views: buffered per isolate, written in one statement per flush ----

interface PendingView {
  solicitationId: string;
  tenantId: string;
  locationId: string;
  surveyId: string | null;
  views: number;
  firstViewedAt: string;
  lastViewedAt: string;
}

const FLUSH_AFTER_MS = 1000;
const FLUSH_AT = 100;

/** Views of one page seen again fold into one row: counts add up, the span widens. */
function mergeViews(into: PendingView, v: PendingView) {
  into.views += v.views;
  if (v.firstViewedAt < into.firstViewedAt) into.firstViewedAt = v.firstViewedAt;
  if (v.lastViewedAt > into.lastViewedAt) into.lastViewedAt = v.lastViewedAt;
  into.surveyId ??= v.surveyId;
}

/**
 * Views are gathered in the isolate (src/lib/write-buffer.ts) and written in one upsert per shard
 * at most once a second (or every FLUSH_AT distinct links), inside waitUntil. A fenced tenant's
 * views stay in the buffer until the fence lifts (the buffer's fence rule). Losing the last second
 * of views when an isolate is evicted only nudges the completion rate.
 */
const views = writeBuffer<PendingView>({
  name: "feedback views",
  flushAfterMs: FLUSH_AFTER_MS,
  flushAt: FLUSH_AT,
  tenantOf: (v) => v.tenantId,
  keyOf: (v) => v.solicitationId,
  merge: mergeViews,
  write: (env, shard, rows) => flushRows(shardDb(env, shard), rows),
});

/** When this isolate saw the solicitation's page last and has not written it yet. */
export const bufferedViewAt = (solicitationId: string) => views.peek(solicitationId)?.lastViewedAt ?? null;

/** One statement: all or nothing, so a failed write is kept whole and never counted twice. */
async function flushRows(db: ShardDb, rows: PendingView[]) {
  if (!rows.length) return;
  // one JSON parameter for any number of rows (D1 allows 100 bound parameters per statement)
  await db.run(sql`insert into ${feedbackViews} (solicitation_id, tenant_id, location_id, survey_id, views, first_viewed_at, last_viewed_at)
    select json_extract(value, '$.solicitationId'), json_extract(value, '$.tenantId'), json_extract(value, '$.locationId'),
      json_extract(value, '$.surveyId'), json_extract(value, '$.views'), json_extract(value, '$.firstViewedAt'), json_extract(value, '$.lastViewedAt')
    from json_each(${JSON.stringify(rows)}) where true
    on conflict (solicitation_id) do update set views = views + excluded.views, last_viewed_at = max(last_viewed_at, excluded.last_viewed_at),
      survey_id = coalesce(excluded.survey_id, survey_id)`);
}

/** Records a landing view off the request path (see `views`). */
export function recordView(deps: PublicDeps, claims: LinkClaims, surveyId: string | null) {
  const at = nowIso();
  views.add(
    deps.env,
    {
      solicitationId: claims.solicitationId,
      tenantId: claims.tenantId,
      locationId: claims.locationId,
      surveyId,
      views: 1,
      firstViewedAt: at,
      lastViewedAt: at,
    },
    deps.defer,
  );
}

import { z } from "@hono/zod-openapi";
import { COMPETITOR_REFRESH_STATUSES, type competitors } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { HttpUrl } from "../../lib/validators";

const siteId = z.string().trim().min(1).max(255).nullable().optional();

const fields = {
  name: z.string().trim().min(1).max(200),
  websiteUrl: HttpUrl.nullable().optional(),
  googlePlaceId: siteId,
  yelpBusinessId: siteId.openapi({
    description: "Yelp business id or alias; rating and review count are refreshed from Yelp Fusion",
  }),
  facebookPageId: siteId,
  tripadvisorId: siteId,
  trustpilotBusinessUnitId: siteId,
};

export const CreateCompetitorBody = z
  .object({ locationId: z.string().min(1), ...fields })
  .openapi("CreateCompetitorRequest");
export const UpdateCompetitorBody = z
  .object({ locationId: z.string().min(1).optional(), ...fields, name: fields.name.optional() })
  .openapi("UpdateCompetitorRequest");

export const CompetitorListQuery = PageQuerySchema.extend({ locationId: z.string().min(1).optional() });

const SiteSummary = z.object({
  rating: z.number().nullable(),
  reviewCount: z.number().int().nullable(),
  fetchedAt: DateTime,
});

export const CompetitorSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    locationId: z.string(),
    name: z.string(),
    websiteUrl: z.string().nullable(),
    googlePlaceId: z.string().nullable(),
    yelpBusinessId: z.string().nullable(),
    facebookPageId: z.string().nullable(),
    tripadvisorId: z.string().nullable(),
    trustpilotBusinessUnitId: z.string().nullable(),
    averageRating: z.number().nullable().openapi({ description: "review-count-weighted over the sites refreshed" }),
    reviewCount: z.number().int().nullable(),
    bySite: z.record(z.string(), SiteSummary),
    lastRefreshedAt: DateTime.nullable(),
    lastRefreshStatus: z.enum(COMPETITOR_REFRESH_STATUSES).nullable(),
    lastRefreshError: z.string().nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Competitor");

export type CreateCompetitorInput = z.infer<typeof CreateCompetitorBody>;
export type UpdateCompetitorInput = z.infer<typeof UpdateCompetitorBody>;
export type CompetitorRow = typeof competitors.$inferSelect;

export const toCompetitor = ({ ...c }: CompetitorRow) => c;

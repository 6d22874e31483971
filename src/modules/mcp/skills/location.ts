import { z } from "@hono/zod-openapi";
import { findLocations } from "../../locations/finder";
import { listLocations } from "../../locations/service";
import { skill } from "./registry";

export const locationListSkill = skill({
  name: "location.list",
  title: "List locations",
  description:
    "Lists the business's locations (stores, clinics, offices), newest first, with address, phone, review-site ids " +
    "(Google place id, Yelp, Facebook), coordinates and brand. Use it to find a locationId for other tools. " +
    "Filter with isActive; page with cursor (pageInfo.endCursor of the previous page).",
  input: z.object({
    isActive: z.boolean().optional().describe("true: only active locations; false: only deactivated ones"),
    limit: z.number().int().min(1).max(200).default(50).describe("page size, 1 to 200 (default 50)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  scopes: ["read:locations"],
  access: "read",
  agencyAware: true,
  handler: async (ctx, input) => listLocations(ctx, { isActive: input.isActive, limit: input.limit, cursor: input.cursor }),
});

export const locationFinderSkill = skill({
  name: "location.finder",
  title: "Find locations near a point or by text",
  description:
    "Finds active locations near a point (lat/lng, within radiusKm, nearest first, each with distanceKm) and/or " +
    "whose name, address, city, state or postal code contains the query text. Give lat and lng, a query, or both. " +
    "Use it to answer 'which of our locations is closest to ...' or 'the Springfield store'.",
  input: z.object({
    lat: z.number().min(-90).max(90).optional().describe("latitude in degrees (with lng)"),
    lng: z.number().min(-180).max(180).optional().describe("longitude in degrees (with lat)"),
    radiusKm: z.number().positive().max(20000).optional().describe("search radius around lat/lng in km (default 50)"),
    query: z.string().trim().min(1).max(200).optional().describe("text to match in name, address, city, state or postal code"),
    limit: z.number().int().min(1).max(100).default(10).describe("how many to return, 1 to 100 (default 10)"),
  }),
  scopes: ["read:locations"],
  access: "read",
  handler: async (ctx, input) => findLocations(ctx, input),
});

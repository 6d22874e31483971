import { z } from "@hono/zod-openapi";
import { findLocations } from "../../locations/finder";
import { skill } from "./registry";

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
    query: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("text to match in name, address, city, state or postal code"),
    limit: z.number().int().min(1).max(100).default(10).describe("how many to return, 1 to 100 (default 10)"),
  }),
  scopes: ["read:locations"],
  access: "read",
  handler: async (ctx, input) => findLocations(ctx, input),
});

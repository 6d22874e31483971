import { z } from "@hono/zod-openapi";
import type { reputationScores } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { daysBetween } from "../analytics/dates";
import { SCORE_WEIGHTS } from "./formula";

const Component = z.number().openapi({ description: "0..100" });

export const ScoreComponentsSchema = z
  .object({
    rating: Component,
    velocity: Component,
    sentiment: Component,
    responseHealth: Component,
    platformDiversity: Component,
  })
  .openapi("ScoreComponents");

export const ScoreSnapshotSchema = z
  .object({
    id: z.string(),
    locationId: z.string(),
    day: z.string().openapi({ description: "UTC day of the snapshot" }),
    score: z.number().int().openapi({ description: "0..100" }),
    components: ScoreComponentsSchema,
    weights: ScoreComponentsSchema,
    inputs: z.record(z.string(), z.unknown()).openapi({ description: "the rollup figures the components came from" }),
    computedAt: DateTime,
  })
  .openapi("ScoreSnapshot");

export const ScoreHistoryQuery = z
  .object({
    dateFrom: z.iso.date().optional(),
    dateTo: z.iso.date().optional(),
    limit: z.coerce.number().int().min(1).max(366).default(90),
  })
  .refine((q) => !q.dateFrom || !q.dateTo || (q.dateFrom <= q.dateTo && daysBetween(q.dateFrom, q.dateTo) <= 731), {
    message: "dateFrom must not be after dateTo, and the range at most 731 days",
    path: ["dateFrom"],
  });

export const ScoreHistorySchema = z.object({ data: z.array(ScoreSnapshotSchema) }).openapi("ScoreHistory");

export type ScoreRow = typeof reputationScores.$inferSelect;

export const toSnapshot = (r: ScoreRow) => ({
  id: r.id,
  locationId: r.locationId,
  day: r.day,
  score: r.score,
  components: {
    rating: r.rating,
    velocity: r.velocity,
    sentiment: r.sentiment,
    responseHealth: r.responseHealth,
    platformDiversity: r.platformDiversity,
  },
  weights: { ...SCORE_WEIGHTS },
  inputs: r.inputs,
  computedAt: r.computedAt,
});

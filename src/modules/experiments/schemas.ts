import { z } from "@hono/zod-openapi";
import { EXPERIMENT_STATUSES, type experiments } from "../../db/schema";
import { DateTime } from "../../lib/openapi";

export const VariantSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    trafficPercent: z.number(),
    templateId: z.string().nullable(),
    config: z.record(z.string(), z.unknown()),
  })
  .openapi("ExperimentVariant");

export const ExperimentSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    name: z.string(),
    hypothesis: z.string(),
    campaignId: z.string().nullable(),
    locationId: z.string().nullable(),
    status: z.enum(EXPERIMENT_STATUSES),
    variants: z.array(VariantSchema).openapi({ description: "the first variant is the control" }),
    winnerVariantId: z.string().nullable(),
    startedAt: DateTime.nullable(),
    completedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Experiment");

const SUM_TOLERANCE = 1e-6;

export const CreateExperimentBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    hypothesis: z.string().trim().min(1).max(2000),
    campaignId: z.string().min(1).nullable().optional(),
    locationId: z.string().min(1).nullable().optional(),
    variants: z
      .array(
        z.object({
          name: z.string().trim().min(1).max(100),
          trafficPercent: z.number().min(0).max(100),
          templateId: z.string().min(1).nullable().optional(),
          config: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .min(2)
      .max(10)
      .refine((vs) => Math.abs(vs.reduce((sum, v) => sum + v.trafficPercent, 0) - 100) < SUM_TOLERANCE, {
        message: "trafficPercent must add up to 100",
      })
      .refine((vs) => new Set(vs.map((v) => v.name.toLowerCase())).size === vs.length, {
        message: "Variant names must be unique",
      })
      .openapi({ description: "at least 2; the first is the control" }),
  })
  .openapi("CreateExperimentRequest");

export const UpdateExperimentBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    hypothesis: z.string().trim().min(1).max(2000).optional(),
    winnerVariantId: z.string().min(1).optional().openapi({
      description: "picks the winner and completes the experiment (from running or paused; 409 otherwise)",
    }),
  })
  .openapi("UpdateExperimentRequest");

export const ExperimentListQuery = z.object({ campaignId: z.string().optional() });

const ProportionTestSchema = z
  .object({
    z: z.number(),
    pValue: z.number().openapi({ description: "two-sided" }),
    difference: z.number().openapi({ description: "variant rate minus control rate" }),
    lift: z
      .number()
      .nullable()
      .openapi({ description: "difference relative to the control rate; null when that is 0" }),
    significant: z.boolean().openapi({ description: "pValue < 0.05" }),
  })
  .openapi("ProportionTest");

export const ResultsSchema = z
  .object({
    experimentId: z.string(),
    status: z.enum(EXPERIMENT_STATUSES),
    controlVariantId: z.string(),
    winnerVariantId: z.string().nullable(),
    significanceLevel: z.number(),
    variants: z.array(
      z.object({
        variantId: z.string(),
        name: z.string(),
        trafficPercent: z.number(),
        isControl: z.boolean(),
        sent: z.number().int(),
        delivered: z.number().int(),
        clicked: z.number().int(),
        converted: z.number().int(),
        deliveryRate: z.number().nullable().openapi({ description: "delivered / sent; null when nothing was sent" }),
        clickRate: z.number().nullable().openapi({ description: "clicked / sent" }),
        conversionRate: z.number().nullable().openapi({ description: "converted / sent" }),
        vsControl: z
          .object({ clickRate: ProportionTestSchema.nullable(), conversionRate: ProportionTestSchema.nullable() })
          .nullable()
          .openapi({
            description:
              "two-proportion z-tests against the control; null for the control itself; a test is null when undefined (no sends)",
          }),
      }),
    ),
  })
  .openapi("ExperimentResults");

export type CreateExperimentInput = z.infer<typeof CreateExperimentBody>;
export type UpdateExperimentInput = z.infer<typeof UpdateExperimentBody>;
export type ExperimentRow = typeof experiments.$inferSelect;
export type ExperimentDto = z.infer<typeof ExperimentSchema>;
export type ExperimentResults = z.infer<typeof ResultsSchema>;

export const toExperiment = (e: ExperimentRow): ExperimentDto => ({
  id: e.id,
  tenantId: e.tenantId,
  name: e.name,
  hypothesis: e.hypothesis,
  campaignId: e.campaignId,
  locationId: e.locationId,
  status: e.status,
  variants: e.variants,
  winnerVariantId: e.winnerVariantId,
  startedAt: e.startedAt,
  completedAt: e.completedAt,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

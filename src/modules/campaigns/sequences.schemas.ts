import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { TemplateSchema } from "../templates/schemas";

export const MAX_SEQUENCE_STEPS = 50;

export const SequenceStepSchema = z
  .object({
    stepIndex: z.number().int(),
    channel: z.enum(MESSAGE_CHANNELS),
    delayDays: z.number().int(),
    templateId: z.string().nullable(),
    template: z.union([TemplateSchema, z.null()]),
  })
  .openapi("SequenceStep");

export const SequenceSchema = z
  .object({
    id: z.string(),
    campaignId: z.string(),
    name: z.string(),
    steps: z.array(SequenceStepSchema).openapi({ description: "sorted by stepIndex" }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Sequence");

export const PutSequenceBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional().openapi({ description: "default: '{campaign name} sequence'" }),
    steps: z
      .array(
        z.object({
          stepIndex: z.number().int().min(0).max(10_000),
          channel: z.enum(MESSAGE_CHANNELS),
          delayDays: z.number().int().min(0).max(365),
          templateId: z.string().min(1).nullable().optional(),
        }),
      )
      .min(1)
      .max(MAX_SEQUENCE_STEPS)
      .superRefine((steps, ctx) => {
        const seen = new Set<number>();
        steps.forEach((s, i) => {
          if (seen.has(s.stepIndex))
            ctx.addIssue({ code: "custom", path: [i, "stepIndex"], message: `Duplicate stepIndex ${s.stepIndex}` });
          seen.add(s.stepIndex);
        });
      }),
  })
  .openapi("PutSequenceRequest");

export type PutSequenceInput = z.infer<typeof PutSequenceBody>;

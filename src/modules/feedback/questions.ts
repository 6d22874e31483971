import { z } from "@hono/zod-openapi";
import { QUESTION_TYPES } from "../../db/schema";

// A survey's questions, as a feedback page asks them and the surveys module edits them: here, so
// feedback does not import surveys (surveys builds on feedback, not the other way round).
const CHOICE_TYPES = new Set(["single_choice", "multiple_choice"]);

export const SurveyQuestionSchema = z
  .object({
    id: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and -; at most 64"),
    type: z.enum(QUESTION_TYPES),
    label: z.string().trim().min(1).max(500),
    required: z.boolean().default(false),
    options: z
      .array(z.string().trim().min(1).max(200))
      .min(2)
      .max(20)
      .optional()
      .openapi({ description: "choices; single_choice and multiple_choice only" }),
  })
  .superRefine((q, ctx) => {
    if (CHOICE_TYPES.has(q.type) !== Boolean(q.options)) {
      ctx.addIssue({
        code: "custom",
        path: ["options"],
        message: "options are required for choice questions and only for them",
      });
    }
  })
  .openapi("SurveyQuestion");

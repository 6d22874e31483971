import { z } from "@hono/zod-openapi";
import { DateTime, PageQuerySchema } from "../../lib/openapi";

// GET /admin/dead-letters (operations.ts) and the console's platform page read the same schemas.

export const DeadLetterSchema = z
  .object({
    id: z.string(),
    queue: z.string(),
    messageId: z.string(),
    body: z.unknown(),
    attempts: z.number().int(),
    createdAt: DateTime,
  })
  .openapi("DeadLetter");

export const DeadLetterListQuery = PageQuerySchema.extend({
  queue: z.string().max(64).optional().openapi({ description: "one queue's dead letters, e.g. sends" }),
});

export const ReplayedDeadLetterSchema = z
  .object({
    id: z.string(),
    queue: z.string(),
    messageId: z.string(),
    replayedTo: z.string().openapi({ description: "the queue the message went back to" }),
    deliveryId: z
      .string()
      .nullable()
      .openapi({ description: "the new webhook delivery, when a failed webhook delivery was replayed" }),
  })
  .openapi("ReplayedDeadLetter");

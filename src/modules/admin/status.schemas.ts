import { z } from "@hono/zod-openapi";
import { SWEEP_OUTCOMES, TENANT_MOVE_STATES } from "../../db/schema";
import { DateTime } from "../../lib/openapi";

const Count = z.number().int().min(0);

const QueueStatus = z
  .object({
    queue: z.string().openapi({
      description: "the queue by its local name in wrangler.toml (a deployment prefixes it with QUEUE_PREFIX)",
      example: "sends",
    }),
    waiting: Count.nullable().openapi({
      description:
        "messages waiting (the queue's backlog), null where the platform does not tell (no metrics on the binding, or no producer binding)",
    }),
    oldestWaitingAt: DateTime.nullable().openapi({
      description: "when the oldest waiting message was sent, where the platform tells",
    }),
    deadLetters24h: Count.openapi({
      description:
        "messages of this queue that exhausted their retries in the last 24 hours (GET /admin/dead-letters?queue=... lists them)",
    }),
  })
  .openapi("QueueStatus");

const SweepStatus = z
  .object({
    cron: z.string().openapi({ example: "*/5 * * * *" }),
    sweep: z.string().openapi({ example: "sla-escalation" }),
    lastRunAt: DateTime,
    durationMs: Count,
    outcome: z.enum(SWEEP_OUTCOMES),
    error: z.string().nullable().openapi({ description: "the last run's failure; null when it succeeded" }),
    lastOkAt: DateTime.nullable().openapi({ description: "the last run that succeeded" }),
    stale: z.boolean().openapi({
      description:
        "true when the last run is older than three intervals of its cron (every 5 minutes: 15 minutes; daily: 26 hours): the trigger is not firing",
    }),
  })
  .openapi("SweepStatus");

const ShardStatus = z
  .object({
    shard: z.number().int().min(0),
    bytes: Count.nullable().openapi({
      description: "size last recorded (daily sweep, every tenant move); null: not measured yet",
    }),
    measuredAt: DateTime.nullable(),
    tenants: Count.openapi({ description: "tenants the directory places on it" }),
    fullness: z
      .number()
      .min(0)
      .nullable()
      .openapi({ description: "bytes / the per-database cap (10 GB), 0..1; null: not measured yet" }),
    roomBytes: Count.nullable().openapi({ description: "room left under the cap" }),
  })
  .openapi("ShardStatus");

const MoveInProgress = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    from: z.number().int(),
    to: z.number().int(),
    state: z.enum(TENANT_MOVE_STATES),
    rows: Count.openapi({ description: "rows copied so far" }),
    startedAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("TenantMoveInProgress");

const ProviderStatus = z
  .object({
    provider: z.string().openapi({
      description:
        "a messaging provider (sendgrid, twilio, smtp, ...) or a review-site / CRM connector (google, yelp, ...)",
      example: "sendgrid",
    }),
    sendErrors1h: Count.openapi({
      description: "sends whose provider refused or failed them (FAILED, or PENDING and retrying) in the last hour",
    }),
    syncErrors1h: Count.openapi({
      description: "connections whose last sync failed or was rate-limited in the last hour",
    }),
    lastErrorAt: DateTime,
    lastError: z.string().openapi({ description: "the most recent error message (200 characters at most)" }),
  })
  .openapi("ProviderStatus");

export const PlatformStatusSchema = z
  .object({
    generatedAt: DateTime,
    queues: z.array(QueueStatus),
    sweeps: z
      .array(SweepStatus)
      .openapi({ description: "each sweep's last run per cron, as recorded; a sweep that never ran is absent" }),
    shards: z.array(ShardStatus).openapi({ description: "the shards this deployment declares" }),
    tenantMoves: z.array(MoveInProgress).openapi({ description: "moves not finished yet, oldest first" }),
    providers: z
      .array(ProviderStatus)
      .openapi({ description: "providers with at least one error in the last hour; empty when all is well" }),
  })
  .openapi("PlatformStatus");

export type PlatformStatus = z.infer<typeof PlatformStatusSchema>;

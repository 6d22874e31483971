import { z } from "@hono/zod-openapi";
import { PlatformStatusSchema } from "../../admin/status.schemas";
import { platformStatus } from "../../admin/status.service";
import { skill } from "./registry";

export const platformStatusSkill = skill({
  name: "platform.status",
  title: "Platform status",
  description:
    "The service's background machinery at a glance, as GET /admin/status returns it: per queue the messages waiting " +
    "(null where the platform does not tell) and dead letters in the last 24 hours; per sweep its last run, duration, " +
    "outcome and whether it is stale; per shard its recorded size, tenants and fullness; tenant moves in progress; per " +
    "provider the send and sync errors of the last hour. Look first at failed or stale sweeps, dead letters, and providers " +
    "with errors. Only for platform administrators.",
  input: z.object({}),
  scopes: null,
  access: "read",
  platformOnly: true,
  output: PlatformStatusSchema,
  handler: async (ctx) => platformStatus(ctx.env),
});

import { stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { agencyOperations } from "./agencies.operations";
import { PlatformStatusSchema } from "./status.schemas";
import { platformStatus } from "./status.service";
import { tenantOperations } from "./tenants.operations";

// The platform's operations (/admin, platform_admin) in the catalogue (src/lib/operation.ts): the
// handler gets a PlatformOperationContext (no tenant; db is the control database).

export const getAdminStatusOperation = defineOperation({
  name: "platform.status",
  context: "platform",
  operationId: "getAdminStatus",
  method: "get",
  path: "/admin/status",
  tags: ["Admin"],
  summary:
    "The background machinery at a glance: queues, sweeps, shards, tenant moves, provider errors (platform_admin)",
  description:
    "Per queue: messages waiting (where the platform tells) and dead letters in the last 24 h. Per sweep: its last run, duration and outcome, and whether it is stale. " +
    "Per shard: recorded size, tenants and fullness against the 10 GB cap. Tenant moves not finished. Per provider: send and sync errors in the last hour. " +
    "What to look at: docs/deploy.md. Also the MCP tool platform.status.",
  output: PlatformStatusSchema,
  errors: stdErrors,
  // API keys never reach /admin; over MCP the tool is offered to a platform admin's session only
  scopes: [],
  access: "read",
  mcp: {
    title: "Platform status",
    description:
      "The service's background machinery at a glance, as GET /admin/status returns it: per queue the messages waiting " +
      "(null where the platform does not tell) and dead letters in the last 24 hours; per sweep its last run, duration, " +
      "outcome and whether it is stale; per shard its recorded size, tenants and fullness; tenant moves in progress; per " +
      "provider the send and sync errors of the last hour. Look first at failed or stale sweeps, dead letters, and providers " +
      "with errors. Only for platform administrators.",
  },
  console: {},
  handler: async (ctx) => platformStatus(ctx.env),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [getAdminStatusOperation, ...agencyOperations, ...tenantOperations];

import { createApp } from "./app";
import type { Env } from "./env";
import { servingRequest, yieldingD1 } from "./db/yielding";
import { handleScheduled } from "./jobs/cron";
import { handleQueue } from "./jobs/queue";
import "./jobs/events";
import "./modules/reviews/jobs";
import "./modules/contacts/jobs";
import "./modules/sso/jobs";
import "./modules/analytics/jobs";
import "./modules/reputation/jobs";
import "./modules/competitors/jobs";
import "./modules/recommendations/jobs";
import "./modules/automation/jobs";
import "./modules/solicitations/jobs";
import "./modules/links/jobs";
import "./modules/sequences/jobs";
import "./modules/white-label/jobs";

export { McpSessions } from "./durable/mcp-sessions";
export { RateLimiter } from "./durable/rate-limiter";

const app = createApp();

/** Background work's D1 gives way to the requests being served (see db/yielding.ts); requests keep the plain binding. */
const withYieldingD1 = (env: Env): Env => ({ ...env, DB: yieldingD1(env.DB) });

/** Secrets the service cannot run without; there is no default for any of them. */
function misconfiguration(env: Env): string | null {
  if (!env.JWT_SECRET || env.JWT_SECRET.length < 32) return "JWT_SECRET is not set (at least 32 characters)";
  return null;
}

export default {
  fetch(request, env, ctx) {
    const problem = misconfiguration(env);
    if (problem) {
      console.error(JSON.stringify({ level: "error", message: `server misconfigured: ${problem}` }));
      return Response.json({ error: `Server misconfigured: ${problem}`, code: "INTERNAL" }, { status: 500 });
    }
    return servingRequest(() => app.fetch(request, env, ctx));
  },
  queue: (batch, env, ctx) => handleQueue(batch, withYieldingD1(env), ctx),
  scheduled: (controller, env) => handleScheduled(controller, withYieldingD1(env)),
} satisfies ExportedHandler<Env>;

import { createApp } from "./app";
import type { Env } from "./env";
import { servingRequest, yieldingD1 } from "./db/yielding";
import { installHooks } from "./hooks";
import { defineAgentSkills } from "./modules/agents/skills";
import { runSweeps } from "./jobs/cron";
import { dispatchQueue } from "./jobs/queue";
import type { Wiring } from "./wiring";

/** Background work's D1 gives way to the requests being served (see db/yielding.ts); requests keep the plain binding. */
const withYieldingD1 = (env: Env): Env => ({ ...env, DB: yieldingD1(env.DB) });

/** Secrets the service cannot run without; there is no default for any of them. */
function misconfiguration(env: Env): string | null {
  if (!env.JWT_SECRET || env.JWT_SECRET.length < 32) return "JWT_SECRET is not set (at least 32 characters)";
  return null;
}

/** The Worker's three entry points over one wiring (src/wiring.ts; tests pass their own). */
export function createWorker(wiring: Wiring) {
  installHooks(wiring.hooks);
  defineAgentSkills();
  const app = createApp();
  const queue = dispatchQueue(wiring.queues);
  const scheduled = runSweeps(wiring.sweeps);
  return {
    fetch(request, env, ctx) {
      const problem = misconfiguration(env);
      if (problem) {
        console.error(JSON.stringify({ level: "error", message: `server misconfigured: ${problem}` }));
        return Response.json({ error: `Server misconfigured: ${problem}`, code: "INTERNAL" }, { status: 500 });
      }
      return servingRequest(() => app.fetch(request, env, ctx));
    },
    queue: (batch, env, ctx) => queue(batch, withYieldingD1(env), ctx),
    scheduled: (controller, env) => scheduled(controller, withYieldingD1(env)),
  } satisfies ExportedHandler<Env>;
}

import { misconfiguration, type Env } from "./env";
import { servingRequest, yieldingD1 } from "./db/yielding";
import { MAX_SHARDS } from "./db/shards";
import { installHooks } from "./hooks";
import { defineAgentSkills } from "./modules/agents/skills";
import { runSweeps } from "./background/cron";
import { dispatchQueue } from "./background/queue";
import type { Wiring } from "./wiring";

/** Background work's D1 (the control database and every shard) gives way to the requests being served (see db/yielding.ts); requests keep the plain bindings. */
const withYieldingD1 = (env: Env): Env => {
  const out: Record<string, unknown> = { ...env, DB: yieldingD1(env.DB) };
  for (let n = 0; n < MAX_SHARDS; n++) {
    const shard = out[`SHARD_${n}`] as D1Database | undefined;
    if (!shard) break;
    out[`SHARD_${n}`] = yieldingD1(shard);
  }
  return out as unknown as Env;
};

const logMisconfiguration = (problem: string) => console.error(JSON.stringify({ level: "error", message: `server misconfigured: ${problem}` }));

/** Background work on a broken environment fails (the queue retries it, then dead-letters it) rather than half-running. */
function assertConfigured(env: Env) {
  const problem = misconfiguration(env);
  if (!problem) return;
  logMisconfiguration(problem);
  throw new Error(`server misconfigured: ${problem}`);
}

/** The Worker's three entry points over one wiring (src/wiring.ts; tests pass their own). */
export function createWorker(wiring: Wiring) {
  installHooks(wiring.hooks);
  defineAgentSkills();
  // The REST/MCP app (every route and its zod schemas) is built on the first request, not at start-up:
  // queue and cron invocations never need it, and start-up CPU is budgeted (docs/performance.md, Start-up).
  // The resolved app is cached, never the promise (it would resume in another request's context).
  let app: ReturnType<typeof import("./app").createApp> | undefined;
  const appFor = async () => {
    const { createApp } = await import("./app");
    return (app ??= createApp());
  };
  const queue = dispatchQueue(wiring.queues);
  const scheduled = runSweeps(wiring.sweeps);
  return {
    fetch(request, env, ctx) {
      const problem = misconfiguration(env);
      if (problem) {
        logMisconfiguration(problem);
        return Response.json({ error: `Server misconfigured: ${problem}`, code: "INTERNAL" }, { status: 500 });
      }
      return servingRequest(async () => (await appFor()).fetch(request, env, ctx));
    },
    queue: async (batch, env, ctx) => {
      assertConfigured(env);
      await queue(batch, withYieldingD1(env), ctx);
    },
    scheduled: async (controller, env) => {
      assertConfigured(env);
      await scheduled(controller, withYieldingD1(env));
    },
  } satisfies ExportedHandler<Env>;
}

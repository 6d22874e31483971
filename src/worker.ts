import { runSweeps } from "./background/cron";
import { dispatchQueue } from "./background/queue";
import { servingRequest, withYieldingD1 } from "./db/yielding";
import type { Env } from "./env";
import { installHooks } from "./hooks";
import { installCatalogue } from "./lib/catalogue";
import { log } from "./lib/log";
import type { Wiring } from "./wiring";

const logMisconfiguration = (problem: string) => log.error(`server misconfigured: ${problem}`);

/**
 * The environment check (src/env.ts, cached per env object there). Its zod schemas, and zod itself,
 * are loaded by the first invocation, not in the global scope (docs/performance.md, Start-up); the
 * module is kept, so later invocations call it without awaiting an import.
 */
let envCheck: typeof import("./env") | undefined;
async function misconfiguration(env: Env): Promise<string | null> {
  envCheck ??= await import("./env");
  return envCheck.misconfiguration(env);
}

/** Background work on a broken environment fails (the queue retries it, then dead-letters it) rather than half-running. */
async function assertConfigured(env: Env) {
  const problem = await misconfiguration(env);
  if (!problem) return;
  logMisconfiguration(problem);
  throw new Error(`server misconfigured: ${problem}`);
}

interface Ready {
  queue: ReturnType<typeof dispatchQueue>;
  scheduled: ReturnType<typeof runSweeps>;
}

/**
 * The Worker's three entry points over one wiring (src/wiring.ts; tests pass their own object).
 * Given a loader (src/index.ts), the wiring, every module it names and the REST/MCP app are
 * imported on the first invocation, not in the global scope: start-up CPU is budgeted
 * (docs/performance.md, Start-up) and a queue or cron invocation never needs the app.
 * Resolved values are cached, never a promise (it would resume in another request's context).
 */
export function createWorker(source: Wiring | (() => Promise<Wiring>)) {
  let ready: Ready | undefined;
  let skills: Wiring["skills"] | undefined;
  let operations: Wiring["operations"] | undefined;
  let skillsRegistered = false;
  let app: ReturnType<typeof import("./app").createApp> | undefined;
  const install = (wiring: Wiring): Ready => {
    if (ready) return ready;
    installHooks(wiring.hooks);
    skills = wiring.skills;
    operations = wiring.operations;
    installCatalogue(wiring.operations);
    ready = { queue: dispatchQueue(wiring.queues), scheduled: runSweeps(wiring.sweeps) };
    return ready;
  };
  const load = async () => {
    const loaded = ready ?? install(typeof source === "function" ? await source() : source);
    // the skills registry imports every skill's output schema (hence most modules' schemas): on the
    // first invocation, not in the global scope (docs/performance.md, Start-up)
    if (!skillsRegistered) {
      const { registerSkills } = await import("./modules/mcp/skills/registry");
      registerSkills(skills ?? []);
      skillsRegistered = true;
    }
    return loaded;
  };
  // an object is installed at once (tests call services that read hooks before any request)
  if (typeof source !== "function") install(source);
  const appFor = async () => {
    await load();
    const { createApp } = await import("./app");
    app ??= createApp(operations);
    return app;
  };
  return {
    async fetch(request, env, ctx) {
      const problem = envCheck ? envCheck.misconfiguration(env) : await misconfiguration(env);
      if (problem) {
        logMisconfiguration(problem);
        return Response.json({ error: `Server misconfigured: ${problem}`, code: "INTERNAL" }, { status: 500 });
      }
      // once built, the app is called directly: no await of the loaders on every request
      const built = app;
      return servingRequest(
        built ? () => built.fetch(request, env, ctx) : async () => (await appFor()).fetch(request, env, ctx),
      );
    },
    queue: async (batch, env, ctx) => {
      await assertConfigured(env);
      await (await load()).queue(batch, withYieldingD1(env), ctx);
    },
    scheduled: async (controller, env) => {
      await assertConfigured(env);
      await (await load()).scheduled(controller, withYieldingD1(env));
    },
  } satisfies ExportedHandler<Env>;
}

import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

if (!env.TEST_MIGRATIONS) throw new Error("TEST_MIGRATIONS binding missing: see vitest.config.mts");
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// The Worker installs the composition root's hooks and agent skills on its first invocation; tests
// also call services directly, before any request, so they get the same wiring up front.
const [{ installHooks }, { HOOKS }, { defineAgentSkills }] = await Promise.all([
  import("../../src/hooks"),
  import("../../src/wiring"),
  import("../../src/modules/agents/skills"),
]);
installHooks(HOOKS);
defineAgentSkills();

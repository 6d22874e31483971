import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

if (!env.TEST_MIGRATIONS) throw new Error("TEST_MIGRATIONS binding missing: see vitest.config.mts");
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// The Worker installs the composition root's hooks and skills on its first invocation; tests also
// call services directly, before any request, so they get the same wiring up front.
const [{ installHooks }, { registerSkills }, { HOOKS, SKILLS }] = await Promise.all([
  import("../../src/hooks"),
  import("../../src/modules/mcp/skills/registry"),
  import("../../src/wiring"),
]);
installHooks(HOOKS);
registerSkills(SKILLS);

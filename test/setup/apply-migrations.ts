import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

if (!env.TEST_MIGRATIONS) throw new Error("TEST_MIGRATIONS binding missing: see vitest.config.mts");
// the control database and every tenant shard carry the whole schema (docs/scaling.md)
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
for (let n = 0; n < 16; n++) {
  const shard = (env as unknown as Record<string, D1Database | undefined>)[`SHARD_${n}`];
  if (!shard) break;
  await applyD1Migrations(shard, env.TEST_MIGRATIONS);
}

// The Worker installs the composition root's hooks and skills on its first invocation; tests also
// call services directly, before any request, so they get the same wiring up front.
const [{ installHooks }, { registerSkills }, { HOOKS, SKILLS }] = await Promise.all([
  import("../../src/hooks"),
  import("../../src/modules/mcp/skills/registry"),
  import("../../src/wiring"),
]);
installHooks(HOOKS);
registerSkills(SKILLS);

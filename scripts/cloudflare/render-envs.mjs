#!/usr/bin/env node
// Re-renders the deployed sections of wrangler.toml from its local section, keeping each section's
// worker name, base URL and ids. Run it after changing the local section (a queue, a var, a cron);
// test/node/wrangler-envs.test.ts fails until the sections agree.
import { readFileSync, writeFileSync } from "node:fs";
import {
  DEPLOYED_ENVS,
  deploymentOf,
  readLocalConfig,
  readRawConfig,
  renderEnvSection,
  upsertEnvSection,
} from "./env-config.mjs";

const config = process.argv[2] ?? "wrangler.toml";
const raw = readRawConfig(config);
const local = readLocalConfig(config);
let text = readFileSync(config, "utf8");
for (const env of DEPLOYED_ENVS) {
  const d = deploymentOf(raw, env);
  if (d) text = upsertEnvSection(text, env, renderEnvSection(local, d));
}
writeFileSync(config, text);

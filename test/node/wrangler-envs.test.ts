import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs helper without types
import * as envConfig from "../../scripts/cloudflare/env-config.mjs";

// one line per import above: a formatter wrapping it would move the @ts-expect-error off the module path
const { DEPLOYED_ENVS, DEPLOYED_FLAGS, deploymentOf, readLocalConfig, readRawConfig, renderEnvSection } = envConfig;

// wrangler.toml as the repository holds it: the top level is the local configuration (npm run dev,
// tests), [env.staging] and [env.production] are deployed. Issue #20 item 8: deployed environments
// fetch only public addresses (DNS rebinding cannot reach loopback or private networks). The local
// section carries the flag too (the OAuth library enables Client ID Metadata Documents only with it);
// on a local workerd (wrangler dev, the test pool) the flag does not close loopback, so local runs
// keep their loopback stand-ins (measured; docs/deploy.md).
const raw = readRawConfig("wrangler.toml");
const local = readLocalConfig("wrangler.toml");

describe("wrangler.toml environments", () => {
  it("is read by the scripts exactly as wrangler's own reader reads it (smol-toml, without loading wrangler)", () => {
    const { experimental_readRawConfig } = createRequire(import.meta.url)("wrangler");
    const theirs = experimental_readRawConfig({ config: "wrangler.toml" }).rawConfig;
    expect(JSON.parse(JSON.stringify(raw))).toEqual(JSON.parse(JSON.stringify(theirs)));
  });

  it("has exactly the deployed environments staging and production", () => {
    expect(Object.keys(raw.env ?? {}).sort()).toEqual([...DEPLOYED_ENVS].sort());
    expect(DEPLOYED_ENVS).toEqual(["staging", "production"]);
  });

  it("sets global_fetch_strictly_public in every deployed environment", () => {
    expect(DEPLOYED_FLAGS).toEqual(["global_fetch_strictly_public"]);
    expect(local.compatibility_flags).toEqual(["nodejs_compat", "global_fetch_strictly_public"]);
    for (const env of DEPLOYED_ENVS) {
      expect(raw.env[env].compatibility_flags, env).toEqual(["nodejs_compat", "global_fetch_strictly_public"]);
    }
  });

  it("gives every deployed environment its own bindings, vars and triggers (wrangler does not inherit them)", () => {
    for (const env of DEPLOYED_ENVS) {
      const e = raw.env[env];
      // local tenant shards are not rendered into deployed environments (docs/scaling.md); a deployment's
      // own shards (npm run shard:add) are SHARD_0 = DB's database, then SHARD_1.. consecutive
      const isShard = (b: string) => /^SHARD_\d+$/.test(b);
      const localControl = local.d1_databases
        .map((d: { binding: string }) => d.binding)
        .filter((b: string) => !isShard(b));
      const bindings: string[] = e.d1_databases.map((d: { binding: string }) => d.binding);
      expect(
        bindings.filter((b) => !isShard(b)),
        env,
      ).toEqual(localControl);
      const shards = bindings.filter(isShard);
      expect(shards, env).toEqual(shards.map((_, n) => `SHARD_${n}`));
      if (shards.length)
        expect(e.d1_databases.find((d: { binding: string }) => d.binding === "SHARD_0").database_id, env).toBe(
          e.d1_databases[0].database_id,
        );
      expect(
        e.kv_namespaces.map((k: { binding: string }) => k.binding),
        env,
      ).toEqual(["OAUTH_KV"]);
      expect(
        e.queues.producers.map((p: { binding: string }) => p.binding),
        env,
      ).toEqual(local.queues.producers.map((p: { binding: string }) => p.binding));
      expect(e.queues.consumers).toHaveLength(local.queues.consumers.length);
      expect(e.durable_objects.bindings).toEqual(local.durable_objects.bindings);
      expect(e.migrations).toEqual(local.migrations);
      expect(e.triggers).toEqual(local.triggers);
      expect(Object.keys(e.vars).sort()).toEqual([...Object.keys(local.vars), "QUEUE_PREFIX"].sort());
    }
  });

  it("runs deployed environments as themselves: ENVIRONMENT, https base URL, prefixed queues, Workers Logs, a custom domain", () => {
    expect(local.vars.ENVIRONMENT).toBe("development");
    for (const env of DEPLOYED_ENVS) {
      const e = raw.env[env];
      expect(e.vars.ENVIRONMENT).toBe(env);
      expect(e.vars.PUBLIC_BASE_URL).toMatch(/^https:\/\//);
      expect(e.observability).toEqual({ enabled: true, head_sampling_rate: 1 });
      expect(e.routes).toEqual([{ pattern: new URL(e.vars.PUBLIC_BASE_URL).hostname, custom_domain: true }]);
      const prefix = e.vars.QUEUE_PREFIX;
      expect(prefix).toBe(`${e.name}-`);
      for (const c of e.queues.consumers) expect(c.queue.startsWith(prefix), c.queue).toBe(true);
    }
    expect(raw.env.staging.name).not.toBe(raw.env.production.name);
    expect(raw.env.staging.vars.QUEUE_PREFIX).not.toBe(raw.env.production.vars.QUEUE_PREFIX);
  });

  it("keeps the deployed sections in step with the local one (re-render: node scripts/cloudflare/render-envs.mjs)", () => {
    const text = readFileSync("wrangler.toml", "utf8");
    for (const env of DEPLOYED_ENVS) {
      expect(text).toContain(renderEnvSection(local, deploymentOf(raw, env)));
    }
  });
});

#!/usr/bin/env node
// `npm run shards -- --env <production|staging> [--json]`
// The deployment's tenant shards: binding, database, the size last recorded (shard_sizes: the daily
// sweep and every tenant move), tenants placed on it (the directory), and room left under D1's
// per-database cap. One read of the control database (docs/scaling.md, "Adding a shard").
import path from "node:path";
import { parseArgs } from "node:util";
import { DEPLOYED_ENVS, deploymentOf, readRawConfig } from "./cloudflare/env-config.mjs";
import { MAX_SHARDS, SHARD_CAP_BYTES } from "./cloudflare/shard-limits.mjs";
import { wranglerRunner } from "./cloudflare/wrangler-run.mjs";

const { values: opts } = parseArgs({
  options: {
    env: { type: "string" },
    config: { type: "string", default: "wrangler.toml" },
    json: { type: "boolean", default: false },
  },
});
const { wrangler, fail } = wranglerRunner("shards");
if (!DEPLOYED_ENVS.includes(opts.env)) fail(`--env must be one of ${DEPLOYED_ENVS.join(", ")}`);
const env = opts.env;
const deployment = deploymentOf(readRawConfig(path.resolve(opts.config)), env);
if (!deployment?.worker || !deployment.d1Id)
  fail(`wrangler.toml has no [env.${env}] with a D1 database: run \`npm run setup:cloudflare -- --env ${env}\` first`);

const SQL =
  "select shard, bytes, measured_at from shard_sizes order by shard; select shard, count(*) as tenants from tenants group by shard order by shard";
const out = wrangler(["d1", "execute", "DB", "--remote", "--env", env, "--json", "--command", SQL]).out;
const start = out.search(/^\[/m);
if (start < 0) fail(`wrangler d1 execute printed no JSON: ${out.slice(0, 200)}`);
const [sizes, counts] = JSON.parse(out.slice(start)).map((r) => r.results ?? []);

const declared = [{ n: 0, name: deployment.worker, id: deployment.d1Id }, ...deployment.shards];
const rows = declared.map((s) => {
  const size = sizes.find((r) => r.shard === s.n);
  const bytes = size ? Number(size.bytes) : null;
  return {
    shard: s.n,
    binding: s.n === 0 && !deployment.shards.length ? "DB" : `SHARD_${s.n}`,
    database: s.name,
    bytes,
    measuredAt: size?.measured_at ?? null,
    tenants: Number(counts.find((r) => r.shard === s.n)?.tenants ?? 0),
    roomBytes: bytes === null ? null : Math.max(0, SHARD_CAP_BYTES - bytes),
  };
});
// tenants the directory places on a shard this section does not declare: the Worker cannot reach them
const stray = counts.filter((r) => !declared.some((s) => s.n === r.shard));

if (opts.json) {
  console.log(
    JSON.stringify({ env, capBytes: SHARD_CAP_BYTES, maxShards: MAX_SHARDS, shards: rows, undeclared: stray }, null, 2),
  );
} else {
  const gb = (b) => (b === null ? "not recorded" : `${(b / 1000 ** 3).toFixed(2)} GB`);
  console.table(
    rows.map((r) => ({
      shard: r.shard,
      binding: r.binding,
      database: r.database,
      size: gb(r.bytes),
      "measured at": r.measuredAt ?? "-",
      tenants: r.tenants,
      "room left":
        r.roomBytes === null ? "-" : `${gb(r.roomBytes)} (${((100 * r.roomBytes) / SHARD_CAP_BYTES).toFixed(0)}%)`,
    })),
  );
  console.log(
    `${rows.length} of at most ${MAX_SHARDS} shards; cap ${gb(SHARD_CAP_BYTES)} per database. Add one: npm run shard:add -- --env ${env}`,
  );
  for (const r of stray)
    console.log(`warning: ${r.tenants} tenant(s) on shard ${r.shard}, which [env.${env}] does not declare`);
}

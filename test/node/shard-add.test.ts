import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs helper without types
import * as envConfig from "../../scripts/cloudflare/env-config.mjs";
// @ts-expect-error plain .mjs helper without types
import { MAX_SHARDS, SHARD_CAP_BYTES } from "../../scripts/cloudflare/shard-limits.mjs";
import { SHARD_CAP_BYTES as WORKER_CAP, MAX_SHARDS as WORKER_MAX_SHARDS } from "../../src/db/shards";
import { runNode, startFakeWrangler } from "./helpers/fake-wrangler.mjs";

// one line per import above: a formatter wrapping it would move the @ts-expect-error off the module path
const { deploymentOf, readLocalConfig, readRawConfig, renderEnvSection, upsertEnvSection } = envConfig;

// `npm run shard:add` and `npm run shards` against the stand-in `wrangler` (test/node/helpers/fake-wrangler.mjs),
// on a deployment as `npm run setup:cloudflare` leaves it: [env.production] with the control database only. The
// stand-in answers from this process, so the scripts run asynchronously (runNode).
const root = path.resolve(import.meta.dirname, "../..");
const TENANT_MIGRATIONS = readdirSync(path.join(root, "migrations/tenant")).filter((f) => f.endsWith(".sql")).length;
const CONTROL_MIGRATIONS = readdirSync(path.join(root, "migrations/control")).filter((f) => f.endsWith(".sql")).length;
const CONTROL_ID = "00000000-0000-0000-0000-000000000000";
const TENANT_FOLDER = { migrations_dir: "migrations/tenant", migrations_table: "d1_migrations_tenant" };

let dir: string;
let config: string;
let stateFile: string;
let fake: { close(): Promise<void> };
const readState = () => JSON.parse(readFileSync(stateFile, "utf8"));
const writeState = (patch: Record<string, unknown>) =>
  writeFileSync(stateFile, JSON.stringify({ ...readState(), ...patch }));

async function run(script: string, args: string[], configFile = config) {
  const before = readState().calls.length;
  const r = await runNode([path.join(root, "scripts", script), "--config", configFile, ...args], {
    cwd: dir,
    env: {
      ...process.env,
      PATH: `${path.join(dir, "bin")}${path.delimiter}${process.env.PATH}`,
      FAKE_WRANGLER_STATE: stateFile,
      FAKE_WRANGLER_CONFIG: configFile,
    },
  });
  return {
    status: r.status,
    out: r.stdout + r.stderr,
    calls: readState()
      .calls.slice(before)
      .map((c: { args: string[] }) => c.args.join(" ")) as string[],
  };
}
const shardAdd = (...args: string[]) => run("shard-add.mjs", ["--env", "production", ...args]);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "shard-add-"));
  config = path.join(dir, "wrangler.toml");
  copyFileSync(path.join(root, "wrangler.toml"), config);
  cpSync(path.join(root, "migrations"), path.join(dir, "migrations"), { recursive: true });
  fake = await startFakeWrangler(path.join(dir, "bin"));
  stateFile = path.join(dir, "state.json");
  // the deployed production: its control database, migrated, and the Worker
  writeFileSync(
    stateFile,
    JSON.stringify({
      d1: [
        {
          uuid: CONTROL_ID,
          name: "reputation-ops",
          created_at: "2026-01-01T00:00:00.000Z",
          version: "production",
          num_tables: 60,
          file_size: 1,
        },
      ],
      kv: [],
      queues: [],
      secrets: { production: ["JWT_SECRET", "ENCRYPTION_KEY", "BOOTSTRAP_SECRET"] },
      workers: ["production"],
      migrations: {
        production: { d1_migrations_tenant: TENANT_MIGRATIONS, d1_migrations_control: CONTROL_MIGRATIONS },
      },
      deploys: [],
      calls: [],
    }),
  );
});

afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run shard:add / npm run shards", { timeout: 60_000 }, () => {
  let first: Awaited<ReturnType<typeof shardAdd>>;
  let textAfterFirst: string;
  let localBefore: unknown;
  let stagingBefore: unknown;

  beforeAll(async () => {
    localBefore = readLocalConfig(config);
    stagingBefore = readRawConfig(config).env.staging;
    first = await shardAdd();
    textAfterFirst = readFileSync(config, "utf8");
  }, 60_000);

  it("reads MAX_SHARDS and the size cap from src/db/shards.ts", () => {
    expect([MAX_SHARDS, SHARD_CAP_BYTES]).toEqual([WORKER_MAX_SHARDS, WORKER_CAP]);
    expect([MAX_SHARDS, SHARD_CAP_BYTES]).toEqual([16, 10_000_000_000]);
  });

  it("creates the database, declares SHARD_0 and SHARD_1, migrates, deploys, then checks the new shard answers", () => {
    expect(first.status, first.out).toBe(0);
    const shard1 = readState().d1.find((d: { name: string }) => d.name === "reputation-ops-shard-1");
    expect(shard1).toBeDefined();
    expect(first.calls.slice(0, 3)).toEqual(["d1 list --json", "d1 create reputation-ops-shard-1", "d1 list --json"]);
    // scripts/db-migrate.mjs on every database of the environment: the control one (tenant folder through SHARD_0, control folder through DB), the new shard
    expect(first.calls.slice(3, -2).sort()).toEqual(
      [
        "d1 execute DB --remote --env production --json --command select name from sqlite_master where type = 'table' and name like 'd1_migrations%' order by name",
        "d1 execute SHARD_1 --remote --env production --json --command select name from sqlite_master where type = 'table' and name like 'd1_migrations%' order by name",
        "d1 migrations apply SHARD_0 --remote --env production",
        "d1 migrations apply DB --remote --env production",
        "d1 migrations apply SHARD_1 --remote --env production",
      ].sort(),
    );
    expect(first.calls.slice(-2)).toEqual([
      "deploy --env production",
      "d1 execute SHARD_1 --remote --env production --json --command select count(*) as applied from d1_migrations_tenant",
    ]);
    expect(first.out).toMatch(/shard 1 \(reputation-ops-shard-1\) answers with all \d+ tenant migrations/);

    const prod = readRawConfig(config).env.production;
    expect(prod.d1_databases).toEqual([
      {
        binding: "DB",
        database_name: "reputation-ops",
        database_id: CONTROL_ID,
        migrations_dir: "migrations/control",
        migrations_table: "d1_migrations_control",
      },
      { binding: "SHARD_0", database_name: "reputation-ops", database_id: CONTROL_ID, ...TENANT_FOLDER },
      { binding: "SHARD_1", database_name: "reputation-ops-shard-1", database_id: shard1.uuid, ...TENANT_FOLDER },
    ]);
    const state = readState();
    // the new database has the tenant folder only; the control database had everything already
    expect(state.migrations).toEqual({
      production: { d1_migrations_tenant: TENANT_MIGRATIONS, d1_migrations_control: CONTROL_MIGRATIONS },
      "production:reputation-ops-shard-1": { d1_migrations_tenant: TENANT_MIGRATIONS },
    });
    expect(state.deploys).toEqual(["production"]);
    // only the environment's marked section changed
    expect(readLocalConfig(config)).toEqual(localBefore);
    expect(readRawConfig(config).env.staging).toEqual(stagingBefore);
    expect(textAfterFirst.slice(0, textAfterFirst.indexOf("# >>> env.production"))).toBe(
      readFileSync(path.join(root, "wrangler.toml"), "utf8").slice(0, textAfterFirst.indexOf("# >>> env.production")),
    );
  });

  it("changes nothing when run again for the same shard: no create, the same config bytes, no migration applied", async () => {
    const before = readState();
    const again = await shardAdd("--shard", "1");
    expect(again.status, again.out).toBe(0);
    expect(again.calls.filter((c) => / create /.test(c))).toEqual([]);
    expect(readFileSync(config, "utf8")).toBe(textAfterFirst);
    expect(again.out).not.toMatch(/migrations applied/);
    expect(again.out.match(/No migrations to apply/g)).toHaveLength(3);
    expect([readState().d1, readState().migrations]).toEqual([before.d1, before.migrations]);
  });

  it("keeps the shards when the section is rendered again (setup:cloudflare, render-envs.mjs)", async () => {
    const r = await runNode([path.join(root, "scripts/cloudflare/render-envs.mjs"), config], { env: process.env });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(config, "utf8")).toBe(textAfterFirst);
    const again = await run("setup-cloudflare.mjs", [
      "--env",
      "production",
      "--name",
      "reputation-ops",
      "--base-url",
      "https://reputation-ops.example.com",
      "--skip-deploy",
    ]);
    expect(again.status, again.out).toBe(0);
    expect(readRawConfig(config).env.production.d1_databases.map((d: { binding: string }) => d.binding)).toEqual([
      "DB",
      "SHARD_0",
      "SHARD_1",
    ]);
  });

  it("adds the next shard on a plain run", async () => {
    const r = await shardAdd();
    expect(r.status, r.out).toBe(0);
    expect(r.calls).toContain("d1 create reputation-ops-shard-2");
    expect(readRawConfig(config).env.production.d1_databases.map((d: { binding: string }) => d.binding)).toEqual([
      "DB",
      "SHARD_0",
      "SHARD_1",
      "SHARD_2",
    ]);
  });

  it("lists shards with recorded size, tenants and room left", async () => {
    writeState({
      control: {
        production: {
          shardSizes: [
            { shard: 0, bytes: 6_000_000_000, measured_at: "2026-11-25T03:17:00.000Z" },
            { shard: 1, bytes: 250_000_000, measured_at: "2026-11-25T03:17:00.000Z" },
          ],
          tenantCounts: [
            { shard: 0, tenants: 120 },
            { shard: 1, tenants: 3 },
          ],
        },
      },
    });
    const listed = await run("shards.mjs", ["--env", "production", "--json"]);
    expect(listed.status, listed.out).toBe(0);
    expect(listed.calls).toEqual([
      expect.stringMatching(
        /^d1 execute DB --remote --env production --json --command select shard, bytes, measured_at from shard_sizes/,
      ),
    ]);
    const json = JSON.parse(listed.out.slice(listed.out.indexOf("{")));
    expect(json.shards).toEqual([
      {
        shard: 0,
        binding: "SHARD_0",
        database: "reputation-ops",
        bytes: 6_000_000_000,
        measuredAt: "2026-11-25T03:17:00.000Z",
        tenants: 120,
        roomBytes: 4_000_000_000,
      },
      {
        shard: 1,
        binding: "SHARD_1",
        database: "reputation-ops-shard-1",
        bytes: 250_000_000,
        measuredAt: "2026-11-25T03:17:00.000Z",
        tenants: 3,
        roomBytes: 9_750_000_000,
      },
      // added since the last size sweep: nothing recorded yet (placement counts it as empty)
      {
        shard: 2,
        binding: "SHARD_2",
        database: "reputation-ops-shard-2",
        bytes: null,
        measuredAt: null,
        tenants: 0,
        roomBytes: null,
      },
    ]);
    const table = await run("shards.mjs", ["--env", "production"]);
    expect(table.status, table.out).toBe(0);
    expect(table.out).toMatch(/reputation-ops-shard-1.*0\.25 GB.*9\.75 GB \(98%\)/);
    expect(table.out).toMatch(/reputation-ops-shard-2.*not recorded/);
    expect(table.out).toContain("3 of at most 16 shards");
  });

  it("refuses above MAX_SHARDS, a gap and an undeployed env before calling wrangler", async () => {
    const full = path.join(dir, "full.toml");
    const raw = readRawConfig(config);
    const shards = Array.from({ length: MAX_SHARDS - 1 }, (_, i) => ({
      n: i + 1,
      name: `reputation-ops-shard-${i + 1}`,
      id: `00000000-0000-0000-0000-0000000000${String(i + 1).padStart(2, "0")}`,
    }));
    writeFileSync(
      full,
      upsertEnvSection(
        readFileSync(config, "utf8"),
        "production",
        renderEnvSection(readLocalConfig(config), { ...deploymentOf(raw, "production"), shards }),
      ),
    );
    const refused = await run("shard-add.mjs", ["--env", "production"], full);
    expect(refused.status).toBe(1);
    expect(refused.calls).toEqual([]);
    expect(refused.out).toContain(
      `refusing to add shard ${MAX_SHARDS}: the Worker routes at most ${MAX_SHARDS} shards (SHARD_0..SHARD_${MAX_SHARDS - 1}, MAX_SHARDS in src/db/shards.ts)`,
    );

    const gap = await shardAdd("--shard", "5");
    expect([gap.status, gap.calls]).toEqual([1, []]);
    expect(gap.out).toContain("shard 5 would leave a gap: the next shard of [env.production] is 3");
    const local = await run("shard-add.mjs", ["--env", "development"]);
    expect([local.status, local.calls]).toEqual([1, []]);
  });
});

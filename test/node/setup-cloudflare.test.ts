import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs helper without types
import { readLocalConfig, readRawConfig } from "../../scripts/cloudflare/env-config.mjs";
import { runNode, startFakeWrangler } from "./helpers/fake-wrangler.mjs";

// `npm run setup:cloudflare` against a stand-in `wrangler` first on PATH (test/node/helpers/fake-wrangler.mjs):
// it keeps the account in a JSON file, records each call and prints wrangler 4.x's output shapes. The stand-in
// answers from this process, so the script runs asynchronously (runNode).
const root = path.resolve(import.meta.dirname, "../..");
const QUEUES = ["sends", "review-sync", "events", "webhooks", "jobs", "clicks", "dead-letter"];

interface Call {
  args: string[];
  stdinKeys?: string[];
}
interface State {
  d1: { uuid: string; name: string }[];
  kv: { id: string; title: string }[];
  queues: { queue_id: string; queue_name: string }[];
  secrets: Record<string, string[]>;
  workers: string[];
  /** per environment: tracking table -> migrations applied */
  migrations: Record<string, Record<string, number>>;
  deploys: string[];
  calls: Call[];
}

let dir: string;
let config: string;
let stateFile: string;
let fake: { close(): Promise<void> };
const readState = (): State => JSON.parse(readFileSync(stateFile, "utf8"));
const sqlFiles = (set: string) =>
  readdirSync(path.join(root, "migrations", set)).filter((f) => f.endsWith(".sql")).length;
const TENANT_MIGRATIONS = sqlFiles("tenant");
const CONTROL_MIGRATIONS = sqlFiles("control");
const PROBE = "select name from sqlite_master where type = 'table' and name like 'd1_migrations%' order by name";

/** scripts/db-migrate.mjs on a deployment whose only database is DB: probe, tenant folder (generated config), control folder. */
const migrateCalls = (env: string) => [
  `d1 execute DB --remote --env ${env} --json --command ${PROBE}`,
  `d1 migrations apply DB --remote --env ${env} -c ${path.join(dir, ".wrangler", "tmp", "migrate-DB-tenant.json")}`,
  `d1 migrations apply DB --remote --env ${env}`,
];

function setup(...extra: string[]) {
  return setupWith(["--name", "acme-reviews", "--base-url", "https://reviews.acme.test", ...extra]);
}

async function setupWith(args: string[]) {
  const before = readState().calls.length;
  const r = await runNode([path.join(root, "scripts/setup-cloudflare.mjs"), "--config", config, ...args], {
    env: {
      ...process.env,
      PATH: `${path.join(dir, "bin")}${path.delimiter}${process.env.PATH}`,
      FAKE_WRANGLER_STATE: stateFile,
      FAKE_WRANGLER_CONFIG: config,
    },
  });
  return {
    status: r.status,
    out: r.stdout + r.stderr,
    calls: readState()
      .calls.slice(before)
      .map((c) => c.args.join(" ")),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "setup-cloudflare-"));
  config = path.join(dir, "wrangler.toml");
  copyFileSync(path.join(root, "wrangler.toml"), config);
  // the migration folders beside the config, as in a checkout
  cpSync(path.join(root, "migrations"), path.join(dir, "migrations"), { recursive: true });
  fake = await startFakeWrangler(path.join(dir, "bin"));
  stateFile = path.join(dir, "state.json");
  // an account with someone else's resources, and one of ours left over from an interrupted run
  writeFileSync(
    stateFile,
    JSON.stringify({
      d1: [
        {
          uuid: "11111111-2222-3333-4444-555555555555",
          name: "other-app",
          created_at: "2026-01-01T00:00:00.000Z",
          version: "production",
          num_tables: 3,
          file_size: 1,
        },
      ],
      kv: [{ id: "ffffffffffffffffffffffffffffffff", title: "other-app-cache", supports_url_encoding: true }],
      queues: [
        { queue_id: "q1", queue_name: "sends" },
        { queue_id: "q2", queue_name: "other-app-jobs" },
        { queue_id: "q3", queue_name: "acme-reviews-events" },
        { queue_id: "q4", queue_name: "other-app-events" },
      ],
      secrets: {},
      workers: [],
      migrations: {},
      deploys: [],
      calls: [],
    }),
  );
});

afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run setup:cloudflare", { timeout: 60_000 }, () => {
  let first: Awaited<ReturnType<typeof setup>>;
  let localBefore: unknown;
  let textAfterFirst: string;

  beforeAll(async () => {
    localBefore = readLocalConfig(config);
    first = await setup();
    textAfterFirst = readFileSync(config, "utf8");
  }, 60_000);

  it("creates what is missing, sets the secrets, migrates, then deploys, in that order", () => {
    expect(first.status, first.out).toBe(0);
    expect(first.calls).toEqual([
      "d1 list --json",
      "d1 create acme-reviews",
      "d1 list --json",
      "kv namespace list",
      "kv namespace create acme-reviews-oauth",
      "kv namespace list",
      "queues list --page 1",
      "queues list --page 2",
      "queues list --page 3", // the first empty page ends the listing (the page size is the API's)
      // acme-reviews-events existed; the other app's queues and the unprefixed "sends" are not ours
      ...QUEUES.filter((q) => q !== "events").map((q) => `queues create acme-reviews-${q}`),
      "secret list --env production --format json",
      "secret bulk --env production",
      ...migrateCalls("production"),
      "deploy --env production",
    ]);
    const state = readState();
    expect(state.calls.find((c) => c.args[1] === "bulk")?.stdinKeys).toEqual([
      "JWT_SECRET",
      "ENCRYPTION_KEY",
      "BOOTSTRAP_SECRET",
    ]);
    expect(state.secrets).toEqual({ production: ["JWT_SECRET", "ENCRYPTION_KEY", "BOOTSTRAP_SECRET"] });
    expect(
      state.queues
        .map((q) => q.queue_name)
        .filter((n) => n.startsWith("acme-reviews-"))
        .sort(),
    ).toEqual(QUEUES.map((q) => `acme-reviews-${q}`).sort());
    expect(state.deploys).toEqual(["production"]);
    // the control database gets both folders, each tracked in its own table (scripts/db-migrate.mjs)
    expect(state.migrations).toEqual({
      production: { d1_migrations_tenant: TENANT_MIGRATIONS, d1_migrations_control: CONTROL_MIGRATIONS },
    });
  });

  it("writes the ids into [env.production] and leaves the local configuration and staging alone", () => {
    const state = readState();
    const raw = readRawConfig(config);
    const prod = raw.env.production;
    const db = state.d1.find((d) => d.name === "acme-reviews")!;
    const kv = state.kv.find((n) => n.title === "acme-reviews-oauth")!;
    expect(prod.name).toBe("acme-reviews");
    expect(prod.d1_databases).toEqual([
      {
        binding: "DB",
        database_name: "acme-reviews",
        database_id: db.uuid,
        migrations_dir: "migrations/control",
        migrations_table: "d1_migrations_control",
      },
    ]);
    expect(prod.kv_namespaces).toEqual([{ binding: "OAUTH_KV", id: kv.id }]);
    expect(prod.vars).toMatchObject({
      ENVIRONMENT: "production",
      PUBLIC_BASE_URL: "https://reviews.acme.test",
      QUEUE_PREFIX: "acme-reviews-",
    });
    expect(prod.routes).toEqual([{ pattern: "reviews.acme.test", custom_domain: true }]);
    expect(prod.compatibility_flags).toContain("global_fetch_strictly_public");
    expect(
      prod.queues.consumers.map((c: { queue: string; dead_letter_queue?: string }) => [
        c.queue,
        c.dead_letter_queue ?? null,
      ]),
    ).toEqual([
      ...QUEUES.filter((q) => q !== "dead-letter").map((q) => [`acme-reviews-${q}`, "acme-reviews-dead-letter"]),
      ["acme-reviews-dead-letter", null],
    ]);
    expect(readLocalConfig(config)).toEqual(localBefore);
    expect(raw.env.staging.name).toBe("reputation-ops-staging");
    expect(raw.env.staging.d1_databases[0].database_id).toBe("00000000-0000-0000-0000-000000000000");
  });

  it("keeps the generated bootstrap secret in a 0600 file beside the config, not in the output", () => {
    const file = path.join(dir, ".bootstrap-secret.production");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secret = readFileSync(file, "utf8").trim();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.out).not.toContain(secret);
  });

  it("changes nothing when run again: no create, no secret, the same config bytes", async () => {
    const stateBefore = readState();
    const again = await setup();
    expect(again.status, again.out).toBe(0);
    expect(again.calls).toEqual([
      "d1 list --json",
      "kv namespace list",
      "queues list --page 1",
      "queues list --page 2",
      "queues list --page 3",
      "queues list --page 4",
      "queues list --page 5",
      "secret list --env production --format json",
      ...migrateCalls("production"),
      "deploy --env production",
    ]);
    expect(again.out).toContain("No migrations to apply");
    expect(again.out).not.toMatch(/migrations applied/);
    expect(readFileSync(config, "utf8")).toBe(textAfterFirst);
    const state = readState();
    expect([state.d1, state.kv, state.queues, state.secrets]).toEqual([
      stateBefore.d1,
      stateBefore.kv,
      stateBefore.queues,
      stateBefore.secrets,
    ]);
  });

  it("upgrades a deployment migrated before the split: completes the legacy folder, records the baselines, creates nothing again", async () => {
    const legacy = readdirSync(path.join(root, "migrations", "legacy")).filter((f) => f.endsWith(".sql")).length;
    const state = readState();
    state.migrations.production = { d1_migrations: legacy };
    writeFileSync(stateFile, JSON.stringify(state));
    const r = await setup();
    expect(r.status, r.out).toBe(0);
    const tmp = path.join(dir, ".wrangler", "tmp");
    expect(r.calls.filter((c) => c.startsWith("d1 ") && c !== "d1 list --json")).toEqual([
      `d1 execute DB --remote --env production --json --command ${PROBE}`,
      `d1 migrations apply DB --remote --env production -c ${path.join(tmp, "migrate-DB-legacy.json")}`,
      expect.stringMatching(
        /^d1 execute DB --remote --env production --json --command .*INSERT OR IGNORE INTO d1_migrations_tenant.*ALTER TABLE d1_migrations RENAME TO d1_migrations_legacy;$/,
      ),
      `d1 migrations apply DB --remote --env production -c ${path.join(tmp, "migrate-DB-tenant.json")}`,
      "d1 migrations apply DB --remote --env production",
    ]);
    // the baselines are recorded, never run (tenant 0000-0001, control 0000): only migrations written after the split apply, each folder's
    const applied = [TENANT_MIGRATIONS - 2, CONTROL_MIGRATIONS - 1]
      .filter((n) => n > 0)
      .map((n) => `${n} migrations applied`);
    expect(r.out.match(/\d+ migrations applied/g)).toEqual(applied.length ? applied : null);
    expect(readState().migrations.production).toEqual({
      d1_migrations_legacy: legacy,
      d1_migrations_tenant: TENANT_MIGRATIONS,
      d1_migrations_control: CONTROL_MIGRATIONS,
    });
    const generated = JSON.parse(readFileSync(path.join(tmp, "migrate-DB-tenant.json"), "utf8"));
    expect(generated.env.production.d1_databases).toEqual([
      {
        binding: "DB",
        database_name: "acme-reviews",
        database_id: readState().d1.find((d) => d.name === "acme-reviews")!.uuid,
        migrations_dir: path.join(dir, "migrations", "tenant"),
        migrations_table: "d1_migrations_tenant",
      },
    ]);
  });

  it("refuses a base URL that is not an https origin and an env that is not deployed, before calling wrangler", async () => {
    for (const extra of [
      ["--base-url", "http://reviews.acme.test"],
      ["--base-url", "https://reviews.acme.test/app"],
      ["--env", "development"],
    ]) {
      const r = await setup(...extra);
      expect(r.status, extra.join(" ")).toBe(1);
      expect(r.calls).toEqual([]);
    }
  });

  it("sets up staging beside production: its own resources, workers.dev without a route, Workers AI kept on re-runs", async () => {
    const args = [
      "--env",
      "staging",
      "--name",
      "acme-reviews-staging",
      "--base-url",
      "https://acme-reviews-staging.acme.workers.dev",
    ];
    const r = await setupWith([...args, "--ai"]);
    expect(r.status, r.out).toBe(0);
    expect(r.calls.filter((c) => c.includes(" create "))).toEqual([
      "d1 create acme-reviews-staging",
      "kv namespace create acme-reviews-staging-oauth",
      ...QUEUES.map((q) => `queues create acme-reviews-staging-${q}`),
    ]);
    const staging = readRawConfig(config).env.staging;
    expect(staging.workers_dev).toBe(true);
    expect(staging.routes).toBeUndefined();
    expect(staging.ai).toEqual({ binding: "AI" });
    expect(staging.vars).toMatchObject({ ENVIRONMENT: "staging", QUEUE_PREFIX: "acme-reviews-staging-" });
    expect(readRawConfig(config).env.production.name).toBe("acme-reviews");

    const text = readFileSync(config, "utf8");
    const again = await setupWith(args); // without --ai: the binding stays
    expect(again.status, again.out).toBe(0);
    expect(readFileSync(config, "utf8")).toBe(text);
  });
});

// Renders a deployed environment's section of wrangler.toml from the local (top-level) section, so
// the queues, consumers, Durable Objects and crons are declared once. Wrangler environments do not
// inherit bindings, vars or triggers: each section carries all of them.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse as parseToml } from "smol-toml";

/** Names of the deployed environments; the top level of wrangler.toml is the local one. */
export const DEPLOYED_ENVS = ["staging", "production"];

/** Compatibility flags every deployed environment must have (the local section may carry them too). */
export const DEPLOYED_FLAGS = ["global_fetch_strictly_public"];

/** The local (top-level) configuration as written, without environment sections. */
export function readLocalConfig(configPath) {
  const { env: _envs, ...local } = readRawConfig(configPath);
  return local;
}

/**
 * wrangler.toml as written, environment sections included: parsed by smol-toml, the parser (and
 * version) wrangler's own reader uses for TOML, without loading wrangler (~2 s of CPU per script run).
 * Any other config format goes through wrangler's reader.
 */
export function readRawConfig(configPath) {
  if (configPath.endsWith(".toml")) return parseToml(readFileSync(configPath, "utf8"));
  const { experimental_readRawConfig } = createRequire(import.meta.url)("wrangler");
  return experimental_readRawConfig({ config: configPath }).rawConfig;
}

/** What a deployed section says about its deployment, to render it again (ids kept). */
export function deploymentOf(raw, env) {
  const e = raw.env?.[env];
  if (!e) return null;
  return {
    env,
    worker: e.name,
    baseUrl: e.vars?.PUBLIC_BASE_URL,
    d1Id: e.d1_databases?.[0]?.database_id,
    kvId: e.kv_namespaces?.[0]?.id,
    ai: Boolean(e.ai),
    shards: deployedShards(e),
  };
}

const SHARD_BINDING = /^SHARD_(\d+)$/;

/**
 * The tenant shards a deployed section declares beyond the control database (`npm run shard:add`):
 * [{ n, name, id }] for SHARD_1..; SHARD_0 is the control database itself and is rendered with it.
 */
export function deployedShards(section) {
  return (section?.d1_databases ?? [])
    .map((d) => ({ n: Number(SHARD_BINDING.exec(d.binding)?.[1] ?? -1), name: d.database_name, id: d.database_id }))
    .filter((s) => s.n >= 1)
    .sort((a, b) => a.n - b.n);
}

/** What one deployment is called and where: every resource name derives from the worker name. */
export function resourceNames(worker) {
  return {
    d1: worker,
    kv: `${worker}-oauth`,
    queuePrefix: `${worker}-`,
    /** tenant shard n >= 1 (`npm run shard:add`); shard 0 is the control database */
    shard: (n) => `${worker}-shard-${n}`,
  };
}

const str = (v) => JSON.stringify(String(v));
const value = (v) => (typeof v === "string" ? str(v) : Array.isArray(v) ? `[${v.map(value).join(", ")}]` : String(v));
const table = (header, obj) =>
  [
    header,
    ...Object.entries(obj)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k} = ${value(v)}`),
  ].join("\n");

const BEGIN = (env) => `# >>> env.${env}`;
const END = (env) => `# <<< env.${env}`;

/**
 * The `[env.<env>]` section for a deployment.
 * opts: { env, worker, baseUrl, d1Id, kvId, ai, shards } (ai: bind Workers AI as AI, deployed only: it has no
 * local emulation; shards: [{ n, name, id }] added by `npm run shard:add`, kept on every re-render)
 */
export function renderEnvSection(local, { env, worker, baseUrl, d1Id, kvId, ai = false, shards = [] }) {
  const names = resourceNames(worker);
  const q = (name) => `${names.queuePrefix}${name}`;
  const host = new URL(baseUrl).hostname;
  const onWorkersDev = host.endsWith(".workers.dev");
  const e = `env.${env}`;
  const parts = [];

  parts.push(
    [
      `${BEGIN(env)}: written by \`npm run setup:cloudflare\` (docs/deploy.md); its ids are this deployment's.`,
      table(`[${e}]`, {
        name: worker,
        compatibility_flags: [...new Set([...(local.compatibility_flags ?? []), ...DEPLOYED_FLAGS])],
        workers_dev: onWorkersDev,
      }),
      // a custom domain for the public base URL (Cloudflare creates the DNS record and certificate)
      onWorkersDev ? null : `routes = [{ pattern = ${str(host)}, custom_domain = true }]`,
    ]
      .filter(Boolean)
      .join("\n"),
  );
  parts.push(
    table(`[${e}.vars]`, {
      ...local.vars,
      ENVIRONMENT: env,
      PUBLIC_BASE_URL: baseUrl.replace(/\/$/, ""),
      QUEUE_PREFIX: names.queuePrefix,
    }),
  );
  parts.push(table(`[${e}.observability]`, { enabled: true, head_sampling_rate: 1 }));
  // the local tenant shards (SHARD_n) are the local topology; a deployment adds its own (docs/scaling.md)
  for (const db of (local.d1_databases ?? []).filter((d) => !/^SHARD_\d+$/.test(d.binding))) {
    parts.push(table(`[[${e}.d1_databases]]`, { ...db, database_name: names.d1, database_id: d1Id }));
  }
  // shards added to this deployment: SHARD_0 is the control database (same id, two bindings, as
  // locally), SHARD_n a database of its own; both take the tenant folder (docs/scaling.md)
  if (shards.length) {
    const tenantFolder = { migrations_dir: "migrations/tenant", migrations_table: "d1_migrations_tenant" };
    const all = [{ n: 0, name: names.d1, id: d1Id }, ...shards];
    for (const s of all)
      parts.push(
        table(`[[${e}.d1_databases]]`, {
          binding: `SHARD_${s.n}`,
          database_name: s.name,
          database_id: s.id,
          ...tenantFolder,
        }),
      );
  }
  for (const kv of local.kv_namespaces ?? []) {
    parts.push(table(`[[${e}.kv_namespaces]]`, { ...kv, id: kvId }));
  }
  for (const p of local.queues?.producers ?? []) {
    parts.push(table(`[[${e}.queues.producers]]`, { ...p, queue: q(p.queue) }));
  }
  for (const c of local.queues?.consumers ?? []) {
    parts.push(
      table(`[[${e}.queues.consumers]]`, {
        ...c,
        queue: q(c.queue),
        dead_letter_queue: c.dead_letter_queue && q(c.dead_letter_queue),
      }),
    );
  }
  for (const b of local.durable_objects?.bindings ?? []) {
    parts.push(table(`[[${e}.durable_objects.bindings]]`, b));
  }
  for (const m of local.migrations ?? []) {
    parts.push(table(`[[${e}.migrations]]`, m));
  }
  if (local.triggers) parts.push(table(`[${e}.triggers]`, local.triggers));
  if (ai) parts.push(table(`[${e}.ai]`, { binding: "AI" }));
  parts.push(END(env));
  return `${parts.join("\n\n")}\n`;
}

/** Every queue a deployment needs (producers, consumers and dead-letter queues), prefixed. */
export function deployedQueueNames(local, worker) {
  const { queuePrefix } = resourceNames(worker);
  const all = new Set();
  for (const p of local.queues?.producers ?? []) all.add(p.queue);
  for (const c of local.queues?.consumers ?? []) {
    all.add(c.queue);
    if (c.dead_letter_queue) all.add(c.dead_letter_queue);
  }
  return [...all].map((n) => `${queuePrefix}${n}`);
}

/** Replaces the environment's marked section of the config text, or appends it. */
export function upsertEnvSection(configText, env, section) {
  const begin = configText.indexOf(BEGIN(env));
  if (begin < 0) return `${configText.replace(/\n*$/, "\n")}\n${section}`;
  const endMarker = configText.indexOf(END(env), begin);
  if (endMarker < 0) throw new Error(`wrangler.toml: "${BEGIN(env)}" has no matching "${END(env)}"`);
  const lineEnd = configText.indexOf("\n", endMarker);
  const after = lineEnd < 0 ? "" : configText.slice(lineEnd + 1);
  return configText.slice(0, begin) + section + after;
}

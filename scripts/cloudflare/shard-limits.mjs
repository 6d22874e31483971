// The shard limits the Worker routes by, read from their one definition in src/db/ (max-shards.ts, shards.ts; the
// scripts are plain Node and cannot import TypeScript; test/node/shard-add.test.ts checks the values
// read here against the module's own exports).
import { readFileSync } from "node:fs";
import path from "node:path";

const source = ["max-shards.ts", "shards.ts"]
  .map((f) => readFileSync(path.resolve(import.meta.dirname, "../../src/db", f), "utf8"))
  .join("\n");

/** `export const NAME = <integer expression of digits, *, **>;` evaluated without eval. */
function constant(name) {
  const m = new RegExp(`export const ${name} = ([\\d\\s*]+);`).exec(source);
  if (!m) throw new Error(`src/db: ${name} not found`);
  const power = (term) =>
    term
      .split("**")
      .map((t) => Number(t.trim()))
      .reduceRight((acc, base) => base ** acc);
  return m[1]
    .split(/(?<!\*)\*(?!\*)/)
    .map(power)
    .reduce((a, b) => a * b, 1);
}

/** SHARD_0..SHARD_{MAX_SHARDS-1} are routed (shardNumbers); a binding above is ignored by the Worker. */
export const MAX_SHARDS = constant("MAX_SHARDS");
/** D1's per-database cap placement measures room against. */
export const SHARD_CAP_BYTES = constant("SHARD_CAP_BYTES");

import { sql } from "drizzle-orm";
import type { Env } from "../env";
import { shardSizes } from "./schema";
import { controlDb, shardD1, shardNumbers } from "./shards";

/**
 * Measures every shard (one trivial query each, on the primary: D1 reports the database's size in
 * `meta.size_after`) and records the sizes on the control plane for placement (docs/scaling.md).
 * Returns shard -> bytes. A shard whose answer carries no size is left as last recorded.
 */
export async function recordShardSizes(env: Env, now = new Date()): Promise<Map<number, number>> {
  const measured = await Promise.all(
    shardNumbers(env).map(async (shard) => {
      const res = await shardD1(env, shard).prepare("select 1").run();
      const bytes = (res.meta as { size_after?: number }).size_after;
      return { shard, bytes: typeof bytes === "number" ? bytes : null };
    }),
  );
  const rows = measured.flatMap((m) =>
    m.bytes === null ? [] : [{ shard: m.shard, bytes: m.bytes, measuredAt: now.toISOString() }],
  );
  if (rows.length) {
    await controlDb(env)
      .insert(shardSizes)
      .values(rows)
      .onConflictDoUpdate({
        target: shardSizes.shard,
        set: { bytes: sql.raw("excluded.bytes"), measuredAt: sql.raw("excluded.measured_at") },
      });
  }
  return new Map(rows.map((r) => [r.shard, r.bytes]));
}

/**
 * The most SHARD_n bindings a deployment may declare (docs/scaling.md). A file of its own so that
 * src/db/yielding.ts, imported in the Worker's global scope, does not pull in drizzle and the schema.
 */
export const MAX_SHARDS = 16;

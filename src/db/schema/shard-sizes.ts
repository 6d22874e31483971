import { integer, sqliteTable } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns";

/**
 * Each shard's size as last measured (D1's `meta.size_after`, bytes): control-plane rows written by
 * the daily shard-size sweep and after every tenant move; placement prefers the shard with the most
 * room under D1's 10 GB cap (src/db/shards.ts).
 */
export const shardSizes = sqliteTable("shard_sizes", {
  shard: integer("shard").primaryKey(),
  bytes: integer("bytes").notNull(),
  measuredAt: timestamp("measured_at").notNull(),
});

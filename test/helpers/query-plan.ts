import { env } from "cloudflare:workers";

/** The plan SQLite picks for a drizzle query (on shard 0), one detail line per step. */
export async function queryPlan(query: { toSQL(): { sql: string; params: unknown[] } }) {
  const { sql, params } = query.toSQL();
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail);
}

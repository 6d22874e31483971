// Types for server.mjs, so TypeScript tests (test/node) can start the built Worker too.
export interface StartedServer {
  mf: { dispose(): Promise<void> };
  url: string;
  db: D1Database;
  /** shard n's database (shards[0] is db, the control database) */
  shards: D1Database[];
}
export function startServer(options?: { port?: number; outdir?: string; vars?: Record<string, string>; inspectorPort?: number; direct?: boolean; shards?: number }): Promise<StartedServer>;
export const BENCH_JWT_SECRET: string;

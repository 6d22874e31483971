// Types for server.mjs, so TypeScript tests (test/node) can start the built Worker too.
export type { SqlDatabase, SqlStatement } from "./sql-worker.mjs";

import type { SqlDatabase } from "./sql-worker.mjs";

export interface StartedServer {
  mf: { dispose(): Promise<void> };
  url: string;
  /** the served Worker's database DB (bench/lib/sql-worker.mjs) */
  db: SqlDatabase;
  /** where another process reaches `db` (d1OverHttp) */
  sqlUrl: string;
}
export function startServer(options?: {
  port?: number;
  outdir?: string;
  vars?: Record<string, string>;
  inspectorPort?: number;
  direct?: boolean;
}): Promise<StartedServer>;
export const BENCH_JWT_SECRET: string;
export const BOOTSTRAP_SECRET_HEADER: { "x-bootstrap-secret": string };
export const TRIVIAL_WORKER: string;
export function startTrivialServer(options?: {
  port?: number;
  direct?: boolean;
  inspectorPort?: number;
}): Promise<{ mf: { dispose(): Promise<void> }; url: string }>;
export const BENCH_BOOTSTRAP_SECRET: string;

// Types for server.mjs, so TypeScript tests (test/node) can start the built Worker too.
export interface StartedServer {
  mf: { dispose(): Promise<void> };
  url: string;
  db: D1Database;
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

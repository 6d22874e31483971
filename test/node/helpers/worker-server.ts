// The built Worker served from workerd on localhost for tests that need a real network server
// (the stdio bridge, a browser): the run's shared one, or the bench's server started for one file that needs
// bindings of its own (startWorker).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer } from "../../../bench/lib/server.mjs";
import { d1OverHttp } from "../../../bench/lib/sql-worker.mjs";

/** A Worker of the file's own, on a free port, with `vars` as extra bindings. */
export async function startWorker({ vars = {} }: { vars?: Record<string, string> } = {}) {
  const outdir = mkdtempSync(path.join(tmpdir(), "reputation-ops-build-"));
  const server = await startServer({ outdir, vars });
  return {
    base: server.url,
    async stop() {
      await server.mf.dispose();
      rmSync(outdir, { recursive: true, force: true });
    },
  };
}

/**
 * The run's shared Worker (test/setup/served-worker.ts): its address, its port and its database (D1's API over
 * HTTP, bench/lib/sql-worker.mjs). A file makes its own tenant on it (helpers/api.ts `tenantApi`) and writes
 * only that tenant's rows.
 */
export function sharedWorker() {
  const url = process.env.SERVED_WORKER_URL;
  const sqlUrl = process.env.SERVED_WORKER_SQL_URL;
  if (!url || !sqlUrl)
    throw new Error("no shared Worker: run the file in vitest's node project (test/setup/served-worker.ts)");
  return { url, port: Number(new URL(url).port), db: d1OverHttp(sqlUrl) };
}

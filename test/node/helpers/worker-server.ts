// The built Worker served from workerd on localhost for tests that need a real network server
// (the stdio bridge, a browser): the bench's server, in a throwaway build folder.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer } from "../../../bench/lib/server.mjs";

export async function startWorker({ port, vars = {} }: { port: number; vars?: Record<string, string> }) {
  const outdir = mkdtempSync(path.join(tmpdir(), "reputation-ops-build-"));
  const server = await startServer({ port, outdir, vars });
  return {
    base: server.url,
    async stop() {
      await server.mf.dispose();
      rmSync(outdir, { recursive: true, force: true });
    },
  };
}

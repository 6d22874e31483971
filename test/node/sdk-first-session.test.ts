// The README's first session through the typed client generated from the OpenAPI document
// (examples/first-session.ts, openapi-fetch), against the built Worker on a real port: the compile
// step in CI proves the types agree with the document, this proves the document agrees with the server.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_SECRETS } from "../../bench/lib/secrets.mjs";
import { startWorker } from "./helpers/worker-server";

let server: Awaited<ReturnType<typeof startWorker>>;
const root = path.resolve(import.meta.dirname, "../..");

/** Runs the example as a user would (tsx, no type check: its types are checked by `npm run sdk:check`). */
async function firstSession(baseUrl: string) {
  const { stdout } = await promisify(execFile)(
    path.join(root, "node_modules/.bin/tsx"),
    ["examples/first-session.ts"],
    {
      cwd: root,
      // the served Worker runs with a BOOTSTRAP_SECRET, as a deployment does
      env: { ...process.env, BASE_URL: baseUrl, BOOTSTRAP_SECRET: BENCH_SECRETS.BOOTSTRAP_SECRET },
    },
  );
  return JSON.parse(stdout) as { name: string; timezone: string | null; googlePlaceId: string | null }[];
}

beforeAll(async () => {
  server = await startWorker();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("examples/first-session.ts with the generated client", () => {
  it("bootstraps, logs in, finds its tenant and creates and lists a location", async () => {
    const locations = await firstSession(server.base);
    expect(locations.map((l) => ({ name: l.name, timezone: l.timezone, googlePlaceId: l.googlePlaceId }))).toEqual([
      { name: "Downtown", timezone: "America/Chicago", googlePlaceId: "ChIJ-example-place" },
    ]);
  }, 60_000);

  it("runs again on a bootstrapped service (bootstrap answers 409, the rest goes on)", async () => {
    const locations = await firstSession(server.base);
    expect(locations.map((l) => l.name)).toEqual(["Downtown", "Downtown"]);
  }, 60_000);
});

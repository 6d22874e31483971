import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The workers project shares one workerd process between test files (vitest.config.mts, docs/testing.md),
// which is only fast with the pool's wrapper classes patched (patches/, applied by `npm install` through
// patch-package): @cloudflare/vitest-pool-workers 0.23.0 nests one more Proxy around a wrapper class's
// shared prototype on every construction (cloudflare/workers-sdk#15092, fixed upstream by #15106), so
// every property read walks all of them and each file ran slower than the one before it (4x the CPU over
// 14 files). An upgrade of the pool must either carry the fix or get the patch ported.
const root = path.resolve(import.meta.dirname, "../..");
const pool = path.join(root, "node_modules/@cloudflare/vitest-pool-workers");

describe("the test pool's patch", () => {
  it("is written for the installed version of @cloudflare/vitest-pool-workers", () => {
    const { version } = JSON.parse(readFileSync(path.join(pool, "package.json"), "utf8"));
    expect(existsSync(path.join(root, `patches/@cloudflare+vitest-pool-workers+${version}.patch`))).toBe(true);
  });

  it("is applied: a wrapper class installs its prototype Proxy once, not on every construction", () => {
    const source = readFileSync(path.join(pool, "dist/worker/lib/cloudflare/test-internal.mjs"), "utf8");
    const factory = source.slice(source.indexOf("function createProxyPrototypeClass"));
    const body = factory.slice(0, factory.indexOf("return Class;"));
    expect(body).toContain("if (!prototypeProxied)");
    expect(body.match(/Class\.prototype = new Proxy/g)).toHaveLength(1);
  });
});

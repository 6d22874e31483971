import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Tests are found by the name of what they test (issue #32; docs/ARCHITECTURE.md, "Where tests live"):
// a module's tests live in test/<module>/ where <module> is its folder under src/modules/. This check
// keeps it so: every module has tests under its own name, and every folder of test/ is a module or
// one of the folders below.
const root = path.join(import.meta.dirname, "../..");
const testDir = path.join(root, "test");

/** Folders of test/ that are not modules, and what each holds. */
const NON_MODULE_FOLDERS: Record<string, string> = {
  helpers: "shared helpers (seed, http, poll, stand-ins used everywhere)",
  setup: "vitest setup files",
  fixtures: "static fixtures (certificates, keys)",
  types: "type-level checks",
  node: "the node-environment vitest project (real file system, Chromium)",
  lib: "tests of src/lib",
  db: "tests of src/db (shards, sessions, fences, schema per database)",
  background: "tests of src/background (queue and cron dispatch, events consumer, dead letters)",
  durable: "tests of src/durable (Durable Object classes)",
  middleware: "tests of src/middleware (authentication, CORS, security headers)",
  app: "tests of the Worker's root files: src/env.ts, src/app.ts (the OpenAPI document), src/worker.ts",
  providers: "tests of src/providers/<provider>, one folder each",
  "cross-cutting": "suites that enumerate every route or domain; each file is justified in its README.md",
};

/**
 * Modules allowed to have no test folder of their own, with the reason. Keep it tiny: write the tests
 * instead (a module's behaviour is worth a file even when other suites reach it).
 */
const EXEMPT_MODULES: Record<string, string> = {};

const dirs = (dir: string) => readdirSync(dir).filter((n) => statSync(path.join(dir, n)).isDirectory());
const testFilesUnder = (dir: string): string[] =>
  !existsSync(dir)
    ? []
    : readdirSync(dir).flatMap((n) => {
        const p = path.join(dir, n);
        return statSync(p).isDirectory() ? testFilesUnder(p) : n.endsWith(".test.ts") ? [p] : [];
      });

const modules = dirs(path.join(root, "src/modules"));

describe("test layout: tests live under the name of what they test", () => {
  it("finds the modules", () => {
    expect(modules.length).toBeGreaterThan(30);
    expect(modules).toContain("contacts");
  });

  it("has tests under test/<module>/ for every module of src/modules/", () => {
    const missing = modules.filter((m) => !(m in EXEMPT_MODULES) && testFilesUnder(path.join(testDir, m)).length === 0);
    expect(missing, "modules without a test file under test/<module>/").toEqual([]);
  });

  it("exempts only modules that exist and really have no tests", () => {
    for (const m of Object.keys(EXEMPT_MODULES)) {
      expect(modules, `exempt module ${m} does not exist`).toContain(m);
      expect(testFilesUnder(path.join(testDir, m)), `${m} has tests now: drop its exemption`).toEqual([]);
    }
  });

  it("has no folder under test/ that is neither a module nor an allowed non-module folder", () => {
    const stray = dirs(testDir).filter((d) => !modules.includes(d) && !(d in NON_MODULE_FOLDERS));
    expect(stray, "rename it after the module it tests (src/modules/<module>) or move its files").toEqual([]);
    const clash = modules.filter((m) => m in NON_MODULE_FOLDERS);
    expect(clash, "a module name is reserved for that module's tests").toEqual([]);
  });

  it("has no test file directly in test/", () => {
    expect(readdirSync(testDir).filter((n) => n.endsWith(".test.ts"))).toEqual([]);
  });

  it("names a provider folder after one of src/providers/; lib, db, background, durable, middleware mirror src", () => {
    const providers = dirs(path.join(root, "src/providers"));
    const testProviders = path.join(testDir, "providers");
    expect(dirs(testProviders).filter((p) => !providers.includes(p))).toEqual([]);
    const loose = readdirSync(testProviders).filter((n) => n.endsWith(".test.ts"));
    expect(loose, "tests go in providers/<provider>/").toEqual([]);
    for (const d of ["lib", "db", "background", "durable", "middleware"]) {
      expect(existsSync(path.join(root, "src", d)), d).toBe(true);
    }
  });

  it("justifies every cross-cutting suite in test/cross-cutting/README.md", () => {
    const dir = path.join(testDir, "cross-cutting");
    const readme = readFileSync(path.join(dir, "README.md"), "utf8");
    const files = testFilesUnder(dir).map((f) => path.basename(f));
    const unlisted = files.filter((f) => !readme.includes(`\`${f}\``));
    expect(unlisted, "add a line saying why it cannot live with one module").toEqual([]);
    // small on purpose: a suite about one module belongs in that module's folder
    expect(files.length).toBeLessThanOrEqual(8);
  });
});

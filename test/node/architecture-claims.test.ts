import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, sourceFiles, src, withoutComments } from "./helpers/source-code";

/**
 * docs/ARCHITECTURE.md's mechanical claims, checked so the doc stays true:
 * - "Layers and their rules": a routes file (`routes.ts`, `*.routes.ts`) holds no SQL. It calls a
 *   service; it does not import drizzle-orm, nor build queries or raw SQL itself. Services use no
 *   Hono, schemas read no database, src/lib imports no module.
 * - "Data and writes": IN lists of any length go through `inJson`/`jsonList`, multi-row inserts through
 *   `chunkRows` (src/lib/sql.ts): no file cuts an id list by a hand-counted parameter budget.
 * - "Request pipeline": credential schemes are the `Authenticator`s of src/middleware/auth.ts; OAuth
 *   access tokens are taken by /mcp only (src/modules/mcp/credentials.ts), not registered for REST.
 */
const rel = (f: string) => path.relative(root, f);

function offenders(files: string[], rules: [string, RegExp][]) {
  return files.flatMap((f) =>
    // the code without its comments (which may well say "SQL" or "90 ids")
    withoutComments(readFileSync(f, "utf8"))
      .split("\n")
      .flatMap((line, i) =>
        rules.filter(([, re]) => re.test(line)).map(([what]) => `${rel(f)}:${i + 1}: ${what}: ${line.trim()}`),
      ),
  );
}

const files = sourceFiles(src);

describe("docs/ARCHITECTURE.md claims that code can check", () => {
  it("no routes or operations file holds SQL: no drizzle-orm, no tables, no query builders, no raw SQL", () => {
    // the doors: hand-written routes and the catalogue's declarations (routes move into operations files)
    const routes = files.filter((f) => /(^|\.)(routes|operations)\.ts$/.test(path.basename(f)));
    expect(routes.length).toBeGreaterThan(60);
    const found = offenders(routes, [
      ["imports drizzle-orm", /from\s+["']drizzle-orm/],
      ["a query builder", /\.(select|selectDistinct|insert|update|delete)\(\s*[a-zA-Z{)]/],
      ["a drizzle chain", /\.from\([a-zA-Z]+\)|\.where\(|\.innerJoin\(|\.leftJoin\(/],
      ["raw SQL", /\bsql`|\.prepare\(|\.exec\(["'`]/],
    ]).filter((o) => !/\.delete\(\s*`?\/|app\.delete|router\.delete/.test(o));
    expect(found).toEqual([]);
  });

  it("the layer table's other rules: services without Hono, schemas without the database, lib without modules", () => {
    const named = (re: RegExp) => files.filter((f) => re.test(path.basename(f)));
    const found = [
      ...offenders(named(/(^|\.)service\.ts$/), [["Hono in a service", /from\s+["']hono|\bc\.req\b/]]),
      ...offenders(named(/(^|\.)schemas\.ts$/), [["database access in schemas", /db\/client|\.select\(|\bctx\.db\b/]]),
      ...offenders(
        files.filter((f) => rel(f).startsWith("src/lib/")),
        [["src/lib importing a module", /from\s+["'][./]+\/modules\//]],
      ),
    ];
    expect(found).toEqual([]);
  });

  it("no file hand-counts an IN list or a statement's bound parameters", () => {
    const others = files.filter((f) => rel(f) !== "src/lib/sql.ts");
    const found = [
      ...offenders(others, [
        [
          "an id list cut to a fixed length for a query",
          /(inArray|inJson|jsonList)\([^;]*\.slice\(\s*\d+\s*,\s*\d+\s*\)/,
        ],
      ]),
      // the tell of a hand count: a constant just under D1's 100 bound parameters, explained by them
      ...others.flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .flatMap((line, i) =>
            /=\s*(8\d|9\d)\s*;.*(param|D1)/i.test(line)
              ? [`${rel(f)}:${i + 1}: a hand-counted chunk: ${line.trim()}`]
              : [],
          ),
      ),
    ];
    expect(found).toEqual([]);
  });

  it("one spelling of the control database: ctx.control in a service, c.var.control on a request", () => {
    // controlDb(env) builds the handle once where a context is made (middleware, system and background
    // contexts); code that already holds a context or a request reads it there (issue #47 item 3)
    const makers = ["src/middleware/request-guards.ts", "src/middleware/control-session.ts"];
    expect(
      offenders(
        files.filter((f) => !makers.includes(rel(f))),
        [
          ["controlDb of a context's env", /controlDb\((ctx|c)\.env\)/],
          ["a second name for ctx.control", /=\s*\(ctx[^)]*\)\s*=>\s*controlDb\(/],
        ],
      ),
    ).toEqual([]);
  });

  it("authenticators: session JWTs and API keys; OAuth access tokens are not a REST credential", () => {
    const auth = readFileSync(path.join(src, "middleware/auth.ts"), "utf8");
    const app = readFileSync(path.join(src, "app.ts"), "utf8");
    expect(auth).toContain('name: "session-jwt"');
    expect(app).toMatch(/registerAuthenticator\(apiKeyAuthenticator\)/);
    const registered = files.flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/registerAuthenticator\((\w+)\)/g)].map((m) => m[1]),
    );
    expect(registered).toEqual(["apiKeyAuthenticator"]);
    const mcp = readFileSync(path.join(src, "modules/mcp/credentials.ts"), "utf8");
    expect(mcp).toMatch(/looksLikeOAuthToken\(token\)/);
  });
});

// Writes the OpenAPI document the app serves at /docs/openapi.json to a file, for `redocly lint` and
// the typed client (docs/api-lint.md). `npx tsx scripts/openapi-dump.ts [out.json]` (default
// openapi.json). Its server is OPENAPI_BASE_URL (and OPENAPI_ENVIRONMENT), else the production
// PUBLIC_BASE_URL of wrangler.toml, so a generated client defaults to production the way the served
// document defaults to its own deployment.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createApp, openApiConfig } from "../src/app";

const root = path.resolve(import.meta.dirname, "..");
const productionUrl = () => {
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  const vars = toml.split(/^\[env\.production\.vars\]$/m)[1]?.split(/^\[/m)[0] ?? "";
  const url = vars.match(/^PUBLIC_BASE_URL\s*=\s*"([^"]+)"/m)?.[1];
  if (!url) throw new Error("wrangler.toml has no [env.production.vars] PUBLIC_BASE_URL");
  return url.replace(/\/+$/, "");
};

const out = path.resolve(process.argv[2] ?? "openapi.json");
const url = process.env.OPENAPI_BASE_URL ?? productionUrl();
const doc = createApp().getOpenAPI31Document(openApiConfig(url, process.env.OPENAPI_ENVIRONMENT ?? "production"));
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);

import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createApp, openApiConfig } from "../../src/app";

// OWASP/OAS lint of the document the app serves, with the ruleset and justified overrides in
// .spectral.yaml. The bar is zero errors, so only the rules whose severity (after .spectral.yaml's overrides)
// is "error" run here: the warning rules computed ~6,000 warnings nobody judged, ~20 s of CPU of the 2-core CI
// machine (docs/testing.md). The full report with the warnings, listed in docs/api-lint.md:
// `npm run openapi:dump && npx spectral lint dist/openapi.json --ruleset .spectral.yaml`.
const root = path.resolve(import.meta.dirname, "../..");
// spectral's own libraries, resolved from its CLI (a devDependency) so they are the versions it runs with
const cli = createRequire(path.join(root, "node_modules/@stoplight/spectral-cli/dist/index.js"));
const { Spectral, Document } = cli("@stoplight/spectral-core");
const Parsers = cli("@stoplight/spectral-parsers");
const { getRuleset } = cli("./services/linter/utils/getRuleset");
const { getResolver } = cli("./services/linter/utils/getResolver");

interface Finding {
  code: string;
  severity: number;
  path: string[];
  message: string;
}
interface Rule {
  enabled: boolean;
  severity: number;
}

// spectral's DiagnosticSeverity: 0 error, 1 warn, 2 info, 3 hint
const ERROR = 0;

describe("spectral lint (spectral:oas + OWASP API Security Top 10 2023 ruleset)", () => {
  it("reports zero errors", async () => {
    const doc = createApp().getOpenAPI31Document(openApiConfig("https://reputation-ops.example.com", "production"));
    const ruleset = await getRuleset(path.join(root, ".spectral.yaml"));
    const rules = Object.values(ruleset.rules) as Rule[];
    const errorRules = rules.filter((r) => r.enabled && r.severity === ERROR);
    for (const rule of rules) if (rule.severity !== ERROR) rule.enabled = false;
    const spectral = new Spectral({ resolver: getResolver(undefined) });
    spectral.setRuleset(ruleset);
    const findings = (await spectral.run(
      new Document(JSON.stringify(doc), Parsers.Json, path.join(root, "dist/openapi.json")),
    )) as Finding[];
    console.log(`spectral: ${errorRules.length} error rules of ${rules.length} run, ${findings.length} findings`);
    // the ruleset loaded: spectral:oas and the OWASP set together have dozens of error rules
    expect(errorRules.length, "no error rules loaded: did .spectral.yaml load?").toBeGreaterThan(20);
    expect(findings.map((f) => `${f.code} at ${f.path.join(".")}: ${f.message}`)).toEqual([]);
  }, 120_000);
});

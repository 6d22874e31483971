import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, sourceFiles, withoutComments } from "./helpers/source-code";

/**
 * One copy of each rule (issue #47, item 3; docs/ARCHITECTURE.md, "Data and writes"): each rule below is
 * defined once, in the module that owns it, and every other module calls that definition. The check
 * looks for the rule's defining code (the query or row it is made of), not for a name, so a second
 * copy fails here however it is called. `duplicates` finds long copies; these are short ones.
 */
// the code without its comments (which may quote the rule)
const files = sourceFiles().map((f) => ({
  file: path.relative(root, f),
  text: withoutComments(readFileSync(f, "utf8")),
}));

interface Rule {
  /** the rule, as a person would say it */
  rule: string;
  /** the one file that defines it */
  owner: string;
  /** what defining it again would look like (matched across lines) */
  defining: RegExp[];
}

const RULES: Rule[] = [
  {
    rule: "a user holds a role on this tenant (a direct tenant grant)",
    owner: "src/modules/users/membership.ts",
    defining: [/eq\(roleAssignments\.scopeType,\s*"tenant"\),\s*eq\(roleAssignments\.scopeId,/],
  },
  {
    rule: "a webhook delivery starts as a pending row (attempts 0, due now)",
    owner: "src/modules/outgoing-webhooks/delivery.ts",
    defining: [/id:\s*`whd_\$\{/, /status:\s*"pending",\s*attempts:\s*0/],
  },
  {
    rule: "CSV is parsed one way (papaparse with the imports' options)",
    owner: "src/lib/csv.ts",
    defining: [/from\s+["']papaparse["']/, /Papa\.parse\s*[<(]/],
  },
  {
    rule: "the review-request funnel is summed from its daily rollup one way",
    owner: "src/modules/analytics/aggregates.ts",
    defining: [/\.\.\.funnelSums\b/, /\.select\(funnelSums\)/],
  },
  {
    rule: "an inbox item's tags are normalised and written one way (trimmed, case-insensitive duplicates dropped, capped)",
    owner: "src/modules/inbox/actions.ts",
    defining: [/\.set\(\{\s*tags\b/, /new Set\(\[\.\.\.item\.tags/],
  },
  {
    rule: "an inbox item is assigned one way (new -> assigned, other statuses stay; the same assignee changes nothing)",
    owner: "src/modules/inbox/actions.ts",
    defining: [/\.set\(\{\s*assignedToUserId\b/],
  },
  {
    rule: "a location a request names is the tenant's (400 Unknown location, or 404)",
    owner: "src/modules/locations/refs.ts",
    defining: [
      // "is there such a location of this tenant": its id (or timezone) by id and tenant
      /\.select\(\{\s*(id|timezone):\s*locations\.\w+\s*\}\)\s*\.from\(locations\)\s*\.where\(\s*and\(\s*(eq\(locations\.id,|eq\(locations\.tenantId,[^)]*\),\s*(inJson|inArray|eq)\(\s*locations\.id\b)/,
      /function\s+(assert|check)Locations?\w*\s*\(/,
    ],
  },
];

describe("one definition of each rule", () => {
  for (const r of RULES) {
    it(`${r.rule}: defined in ${r.owner} only`, () => {
      const defining = files.filter((f) => r.defining.some((re) => re.test(f.text))).map((f) => f.file);
      expect(defining).toEqual([r.owner]);
    });
  }
});

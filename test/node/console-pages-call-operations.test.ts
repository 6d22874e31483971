import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, sourceFiles, src, withoutComments } from "./helpers/source-code";

/**
 * A console page calls the operation REST calls (issue #47 item 1, docs/console.md "How a page is built"):
 * `callOperation(c, xOperation, …)` runs REST's guard, role check and schemas, then the same handler. So a
 * page imports from another module only its operations, its schemas and its types; anything else it takes
 * from a module (a service function, a constant, a pure helper) is listed here with why, and a page that
 * starts calling a service directly fails until it calls the operation instead or says why it cannot.
 */
const PAGES = path.join(src, "modules/console/pages");

/** "page file: module/file: name" -> why the page takes it from the module rather than through an operation */
const KEPT: Record<string, string> = {
  // pure values and functions: no data read, no rule applied to stored state
  "api-keys.tsx: identity/scopes: API_SCOPES": "the scopes a key may hold, for the form's boxes",
  "api-keys.tsx: identity/scopes: DEFAULT_API_KEY_SCOPES": "the boxes ticked to start, REST's default",
  "api-keys.tsx: oauth/scopes: SCOPES": "each scope's sentence",
  "connected-apps.tsx: oauth/scopes: SCOPES": "each scope's sentence",
  "connected-apps.tsx: oauth/scopes: isScope": "a granted scope the list can name",
  "automation.tsx: events/catalogue: isEventType":
    "the event types a rule may start on (the catalogue's constant list)",
  "automation.tsx: events/catalogue: payloadFields": "the fields a condition may test, per event type",
  "contacts-import.tsx: audit/csv: csvRow": "the refused rows' CSV, escaped as every CSV of the service",
  "template.tsx: templates/render: SMS_OPT_OUT_TEXT": "the opt-out line the preview shows the length of",
  "template.tsx: templates/service: MAX_SMS_CHARACTERS": "the SMS length the editor counts against",
  "template.tsx: templates/tokens: BUILTIN_TOKENS": "the variables the editor lists",
  "white-label.tsx: white-label/logo-url: ownLogoUrl": "the address of the uploaded logo on this origin",
  "white-label.tsx: white-label/logos: LOGO_MAX_BYTES": "the upload limit the form states",
  "widgets.tsx: widgets/footer: siteLabel": "a review site's name as widgets print it",
  "contact.tsx: solicitations/policy: evaluateAtSend":
    "the send policy as a pure function over the consent, compliance and contact the operations answered",
  // checks on the signed-in person (which links and sections to show), not on data
  "agency.tsx: identity/access: administeredAgencies": "the agencies the person runs, for the White label links",
  "agency.tsx: identity/access: isPlatformAdmin": "the platform admin's view of the agency page",
  "settings.tsx: identity/access: roleAtLeast": "which settings cards the person's role opens",
  // reads and writes with no operation of the catalogue, each said in its file and in docs/console.md
  "contact.tsx: tenants/service: findScopedTenant":
    "the tenant's name and paused state (no /v1 operation reads the tenant; every page header reads it so)",
  "tenants.tsx: identity/access: resolveTenantAccess": "the tenant switcher: the person's role in each tenant",
  "tenants.tsx: identity/service: findTenantRef": "the tenant switcher: a tenant by id for its name",
  "tenants.tsx: tenants/reachable: reachableTenants":
    "the tenant switcher: the tenants this person reaches on this host (REST is host-neutral: no such operation)",
  "confirm.tsx: mcp/confirm-in-browser: askForPerson":
    "the MCP confirmation store (a protocol door, not in the catalogue)",
  "confirm.tsx: mcp/confirm-in-browser: decideAsPerson":
    "the MCP confirmation store (a protocol door, not in the catalogue)",
  "confirm.tsx: reviews/responses.service: findResponseRow":
    "the reply a confirmation names (REST has no GET of one reply)",
  "me.tsx: auth/password.service: changeOwnPassword":
    "the /me operation answers the new session as a JWT; the console sets it as its cookie",
  "template.tsx: templates/variables.service: customTokenKeys":
    "the location variables' names (template.tokens is an agent tool without a REST door)",
};

/** Each value a page imports from another module: "page: module/file: name". */
function valueImports(file: string): string[] {
  const text = withoutComments(readFileSync(file, "utf8"));
  const out: string[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*"\.\.\/\.\.\/([a-z-]+)\/([\w.-]+)"/g)) {
    const [, typeOnly, names, module, source] = m;
    if (typeOnly || module === "console") continue;
    // what a page may take from a module: the operations it calls and the schemas REST reads its parts with
    if (/(^|\.)operations$/.test(source!) || /(^|\.)schemas$/.test(source!)) continue;
    for (const raw of names!.split(",")) {
      const name = raw.trim();
      if (!name || name.startsWith("type ")) continue;
      out.push(`${path.basename(file)}: ${module}/${source}: ${name.split(/\s+as\s+/)[0]}`);
    }
  }
  return out;
}

/** The operations the console's files import by name (`xOperation`), each with the file that imports it. */
function operationsImported(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of sourceFiles(path.join(src, "modules/console"))) {
    const text = withoutComments(readFileSync(file, "utf8"));
    for (const m of text.matchAll(/import\s+\{([^}]*)\}\s*from\s*"[^"]*operations"/g))
      for (const raw of m[1]!.split(",")) {
        const name = raw.trim().split(/\s+as\s+/)[0]!;
        if (name.endsWith("Operation") && !name.startsWith("type ")) out.set(name, path.relative(root, file));
      }
  }
  return out;
}

/**
 * The declaration's text of an exported operation: `export const x = defineOperation({...})`, or made by a
 * factory of its file (`export const x = activation("activate")` -> `const activation = (...) => defineOperation({...})`).
 */
function declarationOf(name: string, modules: { file: string; text: string }[]): string | undefined {
  for (const { text } of modules) {
    const at = text.search(new RegExp(`export const ${name} = `));
    if (at < 0) continue;
    const rest = text.slice(at);
    const direct = /^export const \w+ = defineOperation\(\{/.test(rest);
    const factory = rest.match(/^export const \w+ = (\w+)\(/)?.[1];
    const start = direct ? at : factory ? text.search(new RegExp(`const ${factory} = \\(`)) : -1;
    if (start < 0) return undefined;
    return text.slice(start, text.indexOf("\n});", text.indexOf("defineOperation({", start)));
  }
  return undefined;
}

describe("console pages call operations", () => {
  const pages = sourceFiles(PAGES);
  const found = pages.flatMap(valueImports);

  it("reads the pages (and sees their operation calls)", () => {
    expect(pages.length).toBeGreaterThan(35);
    const calls = pages.filter((f) => readFileSync(f, "utf8").includes("callOperation")).length;
    expect(calls).toBeGreaterThan(30);
  });

  it("take from a module nothing but its operations, schemas and types, or what is listed with why", () => {
    const unlisted = found.filter((f) => !(f in KEPT));
    expect(unlisted, "call the operation REST calls (callOperation), or list it in KEPT with why").toEqual([]);
  });

  it("every operation the console calls declares its console door (callOperation refuses one that does not)", () => {
    const modules = sourceFiles(path.join(src, "modules"))
      .filter((f) => /operations\.ts$/.test(f))
      .map((f) => ({ file: f, text: withoutComments(readFileSync(f, "utf8")) }));
    const imported = operationsImported();
    expect(imported.size).toBeGreaterThan(150);
    const undeclared = [...imported].filter(([name]) => {
      const declaration = declarationOf(name, modules);
      return !declaration || !/\n\s+console:/.test(declaration);
    });
    expect(undeclared.map(([name, file]) => `${name} (${file})`)).toEqual([]);
  });

  it("lists nothing a page no longer takes", () => {
    expect(
      Object.keys(KEPT).filter((k) => !found.includes(k)),
      `stale entries (${path.relative(root, PAGES)})`,
    ).toEqual([]);
  });
});

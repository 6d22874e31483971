import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * Escaping by construction (docs/SECURITY.md, issue #45): every piece of HTML the service builds is
 * hono/jsx, which escapes every value it is given. A template literal that puts values between HTML
 * tags, or a hand-written escaper, would be a way back to one forgotten escape: this test finds both.
 */
const SRC = path.join(import.meta.dirname, "../../src");

/** Where an exception is the right thing, with the reason. Keep it short. */
const ALLOWED: Record<string, string> = {
  // the embed script's own JavaScript source: its markup is the JSX-rendered widget, inlined as a JSON string
  "modules/widgets/render.tsx": "JavaScript source of embed.js (the markup inside it is JSX output as JSON)",
  // the snippet a tenant copies into their own site, shown as text: our base URL and a widget's public key
  "modules/widgets/schemas.ts": "embed snippets (text to copy, never rendered by us): our URL and a public key",
};
/** The one hand-written escaper: values put into a tenant's own HTML template (markup the tenant wrote, not ours). */
const ESCAPER_ALLOWED = "modules/templates/render.tsx";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) ? [full] : [];
  });
}

interface Literal {
  /** the literal's static text (template parts joined) */
  text: string;
  /** a template literal with `${...}` in it */
  interpolated: boolean;
  line: number;
}

/**
 * The string and template literals of a file, with a small scanner: comments skipped, regular expression
 * literals told from division by the token before them, nested `${...}` followed.
 */
function literalsOf(source: string): Literal[] {
  const out: Literal[] = [];
  let i = 0;
  let line = 1;
  let prev = ""; // the last significant character outside literals and comments
  const regexCanStart = () =>
    prev === "" ||
    /[(,=:[!&|?{};+\-*%<>~^]/.test(prev) ||
    /\b(return|typeof|case)$/.test(source.slice(Math.max(0, i - 7), i).trimEnd());
  function template(): Literal {
    const start = line;
    let text = "";
    let interpolated = false;
    i++; // the opening backtick
    while (i < source.length && source[i] !== "`") {
      if (source[i] === "\\") {
        text += source.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (source[i] === "$" && source[i + 1] === "{") {
        interpolated = true;
        i += 2;
        code("}");
        i++; // the closing brace
        text += "$" + "{}";
        continue;
      }
      if (source[i] === "\n") line++;
      text += source[i++];
    }
    i++;
    return { text, interpolated, line: start };
  }
  function code(until?: string) {
    let depth = 0;
    while (i < source.length) {
      const ch = source[i]!;
      if (until && ch === until && depth === 0) return;
      if (ch === "\n") {
        line++;
        i++;
        continue;
      }
      if (/\s/.test(ch)) {
        i++;
        continue;
      }
      if (ch === "/" && source[i + 1] === "/") {
        while (i < source.length && source[i] !== "\n") i++;
        continue;
      }
      if (ch === "/" && source[i + 1] === "*") {
        const end = source.indexOf("*/", i + 2);
        line += source.slice(i, end).split("\n").length - 1;
        i = end + 2;
        continue;
      }
      if (ch === "'" || ch === '"') {
        const start = line;
        let j = i + 1;
        while (j < source.length && source[j] !== ch) j += source[j] === "\\" ? 2 : 1;
        out.push({ text: source.slice(i + 1, j), interpolated: false, line: start });
        i = j + 1;
        prev = ch;
        continue;
      }
      if (ch === "`") {
        out.push(template());
        prev = "`";
        continue;
      }
      if (ch === "/" && regexCanStart()) {
        let j = i + 1;
        let inClass = false;
        while (j < source.length && (inClass || source[j] !== "/")) {
          if (source[j] === "\\") j++;
          else if (source[j] === "[") inClass = true;
          else if (source[j] === "]") inClass = false;
          j++;
        }
        i = j + 1;
        while (/[a-z]/.test(source[i] ?? "")) i++;
        prev = "/";
        continue;
      }
      if (ch === "{") depth++;
      if (ch === "}") depth--;
      prev = ch;
      i++;
    }
  }
  code();
  return out;
}

const TAG =
  /<\/?(html|head|body|main|section|header|footer|nav|div|span|p|a|h[1-6]|ul|ol|li|dl|dt|dd|table|thead|tbody|tr|td|th|caption|form|input|button|select|option|textarea|label|fieldset|legend|img|strong|em|b|i|code|pre|blockquote|time|br|meta|title|style|script|link|svg|small)[\s>/]/i;

/** `file:line` of each literal that builds HTML around values, or writes a whole document by hand. */
function offenders(): string[] {
  return sourceFiles(SRC).flatMap((file) => {
    const rel = path.relative(SRC, file).split(path.sep).join("/");
    if (ALLOWED[rel] || rel === "lib/html.ts") return [];
    return literalsOf(readFileSync(file, "utf8"))
      .filter((l) => (l.interpolated && TAG.test(l.text)) || /<!doctype/i.test(l.text))
      .map((l) => `${rel}:${l.line}`);
  });
}

/** `file:line` of each hand-written HTML escaper (a replace over the characters & < > " '). */
function escapers(): string[] {
  return sourceFiles(SRC).flatMap((file) => {
    const rel = path.relative(SRC, file).split(path.sep).join("/");
    if (rel === ESCAPER_ALLOWED) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) =>
        /escapeHtml\s*\(|\[&<>"']|&#\$\{|&(amp|lt|gt|quot);/.test(line) ? [`${rel}:${i + 1}`] : [],
      );
  });
}

describe("HTML is built by construction (hono/jsx)", () => {
  it("the scanner finds what it must", () => {
    // the source under test, with template syntax in plain strings on purpose
    const found = literalsOf(
      [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
        "// `<p>${no}</p>` in a comment",
        "const r = /[`'\"]/g; const d = a / b / c;",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
        "const t = `<p>${name}</p>`;",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
        "const u = `plain ${x}`;",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
        "const n = `${`<b>${inner}</b>`}`;",
        "const s = '<p>' + x;",
      ].join("\n"),
    );
    expect(found.filter((l) => l.interpolated && TAG.test(l.text)).map((l) => l.line)).toEqual([3, 5]);
    expect(found.map((l) => l.text)).toContain("<p>");
  });

  it("reads the whole tree", () => {
    expect(sourceFiles(SRC).length).toBeGreaterThan(300);
  });

  it("no template literal puts values between HTML tags, and no page writes its own doctype", () => {
    expect(offenders()).toEqual([]);
  });

  it("no hand-written HTML escaper outside the template renderer", () => {
    expect(escapers()).toEqual([]);
  });
});

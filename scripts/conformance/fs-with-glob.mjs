// node:fs plus fs.globSync (Node 22+), which the conformance CLI imports; this project runs Node 20.
// The CLI only globs "**/checks.json" under its results folder, so "**", "*" and "?" suffice.
import { readdirSync } from "node:fs";
import path from "node:path";

export * from "node:fs";
export { default } from "node:fs";

export function globSync(pattern, { cwd = process.cwd() } = {}) {
  const matcher = globToRegExp(pattern);
  return readdirSync(cwd, { recursive: true })
    .map((entry) => String(entry).split(path.sep).join("/"))
    .filter((entry) => matcher.test(entry));
}

function globToRegExp(pattern) {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (pattern.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

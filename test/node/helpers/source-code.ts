import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/** The repository root and its src/. */
export const root = path.join(import.meta.dirname, "../../..");
export const src = path.join(root, "src");

/** Every .ts/.tsx file under `dir`, leaving out the paths in `skip` (files or folders). */
export function sourceFiles(dir: string = src, skip: ReadonlySet<string> = new Set()): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (skip.has(full)) return [];
    if (statSync(full).isDirectory()) return sourceFiles(full, skip);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

/** The code without its comments (which may well quote what a check looks for). */
export const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

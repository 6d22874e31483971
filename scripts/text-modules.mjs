// `node --import ./scripts/text-modules.mjs`: imports of `*.txt` and `*.tiktoken` files resolve to their text
// (`export default "..."`), as wrangler's Text module rules (wrangler.toml [[rules]]) and the test pool do, for
// scripts that load the app in Node (scripts/openapi-dump.ts): the MCP Apps view script is such a module.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
    import { readFile } from "node:fs/promises";
    export async function load(url, context, nextLoad) {
      if (!/\\.(txt|tiktoken)$/.test(new URL(url).pathname)) return nextLoad(url, context);
      const text = await readFile(new URL(url), "utf8");
      return { format: "module", source: "export default " + JSON.stringify(text) + ";", shortCircuit: true };
    }
  `)}`,
);

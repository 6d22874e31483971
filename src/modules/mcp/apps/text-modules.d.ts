// The MCP Apps view script and stylesheet, imported as Text modules (wrangler's default rule for *.txt):
// their text. Built by scripts/build-browser-code.mjs, not committed: the declaration does not need the files.
declare module "*.generated.txt" {
  const text: string;
  export default text;
}

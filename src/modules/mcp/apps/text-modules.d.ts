// The MCP Apps view script, imported as a Text module (wrangler's default rule for *.txt): its text.
declare module "*.generated.txt" {
  const text: string;
  export default text;
}

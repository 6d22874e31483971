// What the bundle gets for `ajv` and `ajv-formats` (wrangler.toml [alias]). The MCP SDK 1.x imports them
// for its default JSON Schema validator, which the session leg replaces with the Workers one
// (protocol-2025-11-25.ts `jsonSchemaValidator`), so nothing constructs them. The real libraries are
// ~290 kB of JavaScript that every isolate would compile at start-up (docs/performance.md). Should
// anything reach for them (`new Ajv()`, `addFormats(ajv)`), it fails loudly instead of validating nothing.
export default function ajvUnused(): never {
  throw new Error("ajv is not bundled: give the MCP SDK a jsonSchemaValidator (docs/performance.md)");
}

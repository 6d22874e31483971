// The Worker's own token code (src/modules/links/tokens.ts), compiled on the fly with esbuild, so
// the bench mints exactly the tokens the service verifies.
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "../..");

export async function loadTokenModule() {
  const out = await build({
    entryPoints: [path.join(root, "src/modules/links/tokens.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent",
  });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`);
}

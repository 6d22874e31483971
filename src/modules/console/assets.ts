// build output of scripts/build-browser-code.mjs (not committed; npm install and every wrangler build write them)
import SCRIPT from "./console-script.generated.txt";
import STYLE from "./console-style.generated.txt";

/*
 * The console's one stylesheet and one script, served from the service's own origin (no CDN, no other
 * origin: docs/console.md). Their URLs carry a hash of their text, so a browser keeps them for a year and
 * a deploy that changes them changes the URL.
 */

/** FNV-1a, 32 bits, as 8 hex characters: a cache key for our own text, not a security function. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

interface Asset {
  path: string;
  body: string;
  type: string;
}

let assets: { style: Asset; script: Asset } | undefined;

/** The two assets with their hashed paths (computed once per isolate, on first use). */
export function consoleAssets() {
  if (!assets)
    assets = {
      style: { path: `/app/assets/console.${fnv1a(STYLE)}.css`, body: STYLE, type: "text/css; charset=utf-8" },
      script: {
        path: `/app/assets/console.${fnv1a(SCRIPT)}.js`,
        body: SCRIPT,
        type: "text/javascript; charset=utf-8",
      },
    };
  return assets;
}

/** GET /app/assets/{file}: the asset whose hashed path it is, else 404. */
export function assetResponse(path: string): Response {
  const a = consoleAssets();
  const asset = path === a.style.path ? a.style : path === a.script.path ? a.script : null;
  if (!asset) return new Response("Not found", { status: 404, headers: { "content-type": "text/plain" } });
  return new Response(asset.body, {
    headers: {
      "content-type": asset.type,
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      "cross-origin-resource-policy": "same-origin",
    },
  });
}

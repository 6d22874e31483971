/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { htmlDocument } from "../../lib/html";
import { BrandFooter, brandCss } from "../white-label/render";
import { DEFAULT_BRAND, type EffectiveBrand } from "../white-label/resolve";

/**
 * The frame of the public pages (unsubscribe, dead links, widget not found): server-rendered hono/jsx,
 * small inline CSS, mobile first, no script and nothing loaded from a CDN. The brand's logo is the only
 * remote asset.
 */

/** Only http(s) URLs are rendered as an image source. */
const safeImageUrl = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null);

const STYLE = `
*{box-sizing:border-box}
body{font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2433;margin:0;padding:1rem}
main{max-width:32rem;margin:1.5rem auto;background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:1.5rem}
header{display:flex;align-items:center;gap:.75rem;margin-bottom:1rem}
header img{max-height:3rem;max-width:8rem;object-fit:contain}
header .brand{font-weight:600;font-size:1.05rem}
h1{font-size:1.3rem;margin:0 0 .75rem}
p{margin:.5rem 0}
.muted{color:#4a5568;font-size:.95rem}
.status{background:#eef7ee;border:1px solid #9c9;border-radius:8px;padding:.6rem .8rem}
form{margin:1rem 0 0}
button{font:inherit;min-height:2.75rem;width:100%;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #1d3fa8;background:#2453d6;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d3fa8}
button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
@media (min-width:30rem){body{padding:2rem}main{padding:2rem}button{width:auto}}
`;

/** Security headers for every public page: nothing to frame, no referrer (the URL holds a token). */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-robots-tag": "noindex",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: http: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
} as const;

/**
 * `brand` is the business the message came from (header); `whiteLabel` the agency's (or tenant's)
 * white label: its colours and its footer.
 */
export function publicPage(o: {
  title: string;
  brand?: { name: string; logoUrl: string | null } | null;
  whiteLabel?: EffectiveBrand;
  lang?: string;
  children: Child;
}): string {
  const wl = o.whiteLabel ?? DEFAULT_BRAND;
  const logo = safeImageUrl(o.brand?.logoUrl ?? null);
  return htmlDocument(
    <html lang={o.lang ?? "en"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex" />
        <title>{o.title}</title>
        {/* our stylesheet, then the brand's colours, which passed a strict #rrggbb check */}
        <style dangerouslySetInnerHTML={{ __html: STYLE + brandCss(wl) }} />
      </head>
      <body>
        <main>
          {o.brand && (
            <header>
              {logo && <img src={logo} alt={`${o.brand.name} logo`} />}
              <span class="brand">{o.brand.name}</span>
            </header>
          )}
          {o.children}
        </main>
        <BrandFooter brand={wl} />
      </body>
    </html>,
  );
}

/** A page that only says something: a heading and, maybe, a line under it. */
export const messagePage = (o: { title: string; heading: string; text?: string; whiteLabel?: EffectiveBrand }) =>
  publicPage({
    title: o.title,
    whiteLabel: o.whiteLabel,
    children: (
      <>
        <h1>{o.heading}</h1>
        {o.text && <p class="muted">{o.text}</p>}
      </>
    ),
  });

export const inactiveLinkPage = (whiteLabel?: EffectiveBrand) =>
  messagePage({
    title: "Link no longer active",
    heading: "This link is no longer active",
    text: "The business may have changed its review pages. Nothing else is needed from you.",
    whiteLabel,
  });

/** Browsers ask for text/html; API clients (and tools without an Accept header) get JSON. */
export const wantsHtml = (accept: string | undefined) =>
  !!accept && /text\/html/i.test(accept) && !/^application\/json/i.test(accept);

/** The unsubscribe page answers HTML unless the client asks for JSON only. */
export const wantsJson = (accept: string | undefined) =>
  !!accept && /application\/json/i.test(accept) && !/text\/html/i.test(accept);

/**
 * The confirm button of an unsubscribe page: a POST carrying RFC 8058's `List-Unsubscribe=One-Click`,
 * the same body a mail client's one-click unsubscribe sends, so both reach one handler.
 */
export const OneClickUnsubscribeForm = () => (
  <form method="post">
    <input type="hidden" name="List-Unsubscribe" value="One-Click" />
    <button type="submit" id="confirm">
      Unsubscribe
    </button>
  </form>
);

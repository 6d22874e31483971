/** @jsxImportSource hono/jsx */
import { renderHtml } from "../../lib/html";
import { ownLogoUrl } from "./logo-url";
import type { EffectiveBrand } from "./resolve";

/**
 * Brand values are untrusted input (an agency admin typed them): colours are re-checked against a
 * strict #rrggbb pattern before they reach CSS, a logo is shown only when uploaded (our own origin:
 * logo-url.ts), and every text is escaped (JSX). safeLogoUrl is for an OAuth client's own logo (https).
 */
const HEX = /^#[0-9a-fA-F]{6}$/;
export const safeHexColor = (v: string | null | undefined) => (v && HEX.test(v) ? v.toLowerCase() : null);
export const safeLogoUrl = (v: string | null | undefined) => {
  if (!v) return null;
  try {
    return new URL(v).protocol === "https:" ? v : null;
  } catch {
    return null;
  }
};

/** WCAG relative luminance of #rrggbb. */
function luminance(hex: string) {
  const c = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
}

/** Black or white, whichever contrasts more with the background: button text stays readable on any brand colour. */
export const textOn = (hex: string) =>
  1.05 / (luminance(hex) + 0.05) >= (luminance(hex) + 0.05) / 0.05 ? "#ffffff" : "#111111";

/**
 * CSS appended after a public page's own: the primary colour on buttons, selected choices and
 * link outlines; the accent colour as a band across the top. Nothing for the default brand.
 */
export function brandCss(brand: EffectiveBrand): string {
  const p = safeHexColor(brand.primaryColor);
  const a = safeHexColor(brand.accentColor);
  let css = "";
  if (p) {
    const t = textOn(p);
    css +=
      `button,button.primary{background:${p};border-color:${p};color:${t}}button.secondary{background:#fff;color:${p};border-color:${p}}` +
      `.scale input:checked+label{background:${p};border-color:${p};color:${t}}.links a{border-color:${p};color:${p}}`;
  }
  if (a) css += `body{border-top:6px solid ${a}}`;
  css +=
    `.wl{margin:1.5rem auto 0;max-width:36rem;display:flex;flex-wrap:wrap;align-items:center;justify-content:center;gap:.5rem;color:#4b5563;font-size:.85rem;text-align:center}` +
    `.wl img{height:24px;max-width:120px;object-fit:contain}.wl a{color:inherit}`;
  return css;
}

/** The footer of a white-labelled page: the brand's logo and name, and its support address. Nothing for the default brand. */
export function BrandFooter({ brand }: { brand: EffectiveBrand }) {
  if (brand.source === "default") return null;
  const logo = ownLogoUrl(brand.logoUrl);
  return (
    <footer class="wl">
      {logo && <img src={logo} alt={brand.name} />}
      <span class="wl-name">{brand.name}</span>
      {brand.supportEmail && (
        <>
          {" "}
          <span>
            Questions? <a href={`mailto:${brand.supportEmail}`}>{brand.supportEmail}</a>
          </span>
        </>
      )}
    </footer>
  );
}

/** The head line of a white-labelled signed-in page (OAuth consent, connected apps): logo and name; nothing for the default brand. */
export function BrandHeader({ brand }: { brand: EffectiveBrand }) {
  if (brand.source === "default") return null;
  const logo = ownLogoUrl(brand.logoUrl);
  return (
    <header class="wl-head">
      {logo && <img src={logo} alt={`${brand.name} logo`} />}
      <span>{brand.name}</span>
    </header>
  );
}

/** The footer as text, for a caller that builds no JSX of its own. */
export const brandFooterHtml = (brand: EffectiveBrand): string =>
  brand.source === "default" ? "" : renderHtml(<BrandFooter brand={brand} />);

/** The lines appended to a white-labelled email (text and HTML); null for the default brand. */
export function emailFooter(brand: EffectiveBrand): { text: string; html: string } | null {
  if (brand.source === "default") return null;
  const support = brand.supportEmail ? ` · Questions? ${brand.supportEmail}` : "";
  return {
    text: `\n\n--\n${brand.name}${support}`,
    html: renderHtml(
      <p style="font-size:12px;color:#666">
        {brand.name}
        {brand.supportEmail && (
          <>
            {" · Questions? "}
            <a href={`mailto:${brand.supportEmail}`}>{brand.supportEmail}</a>
          </>
        )}
      </p>,
    ),
  };
}

/** An email's bodies with the brand's footer (HTML: before </body> when there is one). */
export function withEmailFooter<T extends { text?: string | null; html?: string | null }>(
  m: T,
  brand: EffectiveBrand,
): T {
  const f = emailFooter(brand);
  if (!f) return m;
  const out = { ...m };
  if (typeof m.text === "string") out.text = m.text + f.text;
  if (typeof m.html === "string") {
    const close = m.html.search(/<\/body>/i);
    out.html = close === -1 ? m.html + f.html : m.html.slice(0, close) + f.html + m.html.slice(close);
  }
  return out;
}

/** @jsxImportSource hono/jsx */
import { htmlDocument, renderHtml } from "../../lib/html";
import type { ShowcaseReview, WidgetData } from "./data";
import { siteLabel } from "./footer";

/**
 * The widget's markup, rendered once per cached widget and shared by the iframe page and the
 * script (hono/jsx). Every value from a review is untrusted and escaped by the renderer; URLs are http(s) only (data.ts).
 */
const CSS = `
.rw{box-sizing:border-box;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;background:#fff;border:1px solid #dfe3ea;border-radius:12px;padding:16px;max-width:40rem}
.rw *{box-sizing:border-box}
.rw header{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem .6rem;margin:0 0 12px}
.rw h2{font-size:17px;margin:0}
.rw .avg{font-weight:600}
.rw .muted{color:#5a6475;font-size:13px}
.rw ol{list-style:none;margin:0;padding:0}
.rw li{border-top:1px solid #eef0f4;padding:10px 0}
.rw .stars{color:#d98e04;letter-spacing:1px}
.rw blockquote{margin:4px 0;white-space:pre-line;overflow-wrap:anywhere}
.rw a{color:#1d3fa8}
.rw footer{border-top:1px solid #eef0f4;padding-top:8px;margin-top:4px;color:#5a6475;font-size:12px}
`;

/** In a shadow root: nothing inherited from the host page (all: initial), nothing leaks out. */
export const SHADOW_CSS = `:host{all:initial;display:block}${CSS}`;
const PAGE_CSS = `body{margin:0;padding:8px;background:transparent}${CSS}`;

function Stars({ rating }: { rating: number }) {
  const full = Math.max(0, Math.min(5, Math.round(rating)));
  return (
    <span class="stars" role="img" aria-label={`${full} out of 5 stars`}>
      {"★".repeat(full) + "☆".repeat(5 - full)}
    </span>
  );
}

function ReviewItem({ r }: { r: ShowcaseReview }) {
  const by = [r.authorName || "Anonymous", siteLabel(r.site), r.publishedAt.slice(0, 10)].join(" · ");
  return (
    <li>
      <Stars rating={r.rating} />
      {r.text && <blockquote>{r.text}</blockquote>}
      <div class="muted">
        {by}
        {r.url && (
          <>
            {" · "}
            <a href={r.url} target="_blank" rel="noopener noreferrer nofollow">
              Read on {siteLabel(r.site)}
            </a>
          </>
        )}
      </div>
    </li>
  );
}

/** A white label's colours over the widget's own (validated #rrggbb only: nothing else reaches CSS). */
const brandCss = (d: WidgetData) => {
  const p = d.brand?.primaryColor;
  const a = d.brand?.accentColor;
  return `${p ? `.rw a{color:${p}}.rw .stars{color:${p}}` : ""}${a ? `.rw{border-top:4px solid ${a}}` : ""}`;
};

function Widget({ d }: { d: WidgetData }) {
  const css = brandCss(d);
  return (
    <>
      <section class="rw" aria-label={`Reviews of ${d.title}`}>
        <header>
          <h2>{d.title}</h2>
          {d.summary.averageRating !== null && <span class="avg">{d.summary.averageRating.toFixed(1)} ★</span>}
          <span class="muted">
            {d.summary.reviewCount} review{d.summary.reviewCount === 1 ? "" : "s"} in total
          </span>
        </header>
        {d.reviews.length ? (
          <ol>
            {d.reviews.map((r) => (
              <ReviewItem r={r} />
            ))}
          </ol>
        ) : (
          <p class="muted">No reviews to show yet.</p>
        )}
        <footer>
          {d.footer}
          {d.brand && (
            <>
              {" · "}
              <span class="wl">Reviews by {d.brand.name}</span>
            </>
          )}
        </footer>
      </section>
      {/* colours that passed the #rrggbb check (data.ts) */}
      {css && <style dangerouslySetInnerHTML={{ __html: css }} />}
    </>
  );
}

/** The widget body: heading with the honest average, the chosen reviews, and the footer naming the filters (and the white label, if any). */
export const widgetHtml = (d: WidgetData): string => renderHtml(<Widget d={d} />);

/** JSON-LD as script text: `<` escaped so review text can never close the script element. */
export const jsonLdText = (ld: Record<string, unknown>) => JSON.stringify(ld).replace(/</g, "\\u003c");

/** The no-JavaScript page for an iframe. */
export function widgetPage(d: WidgetData): string {
  return htmlDocument(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>Reviews of {d.title}</title>
        <style dangerouslySetInnerHTML={{ __html: PAGE_CSS }} />
      </head>
      <body>
        <Widget d={d} />
      </body>
    </html>,
  );
}

/** A JavaScript string literal (JSON, with `<` escaped so the file is also safe inlined in a page). */
const jsString = (s: string) => JSON.stringify(s).replace(/</g, "\\u003c");

/**
 * The embed script. One global, `ReputationWidgets` ({mount(element)}), shared by every widget on
 * the page; everything else lives in a function scope. It renders into an open shadow root of each
 * `[data-reputation-widget="KEY"]` element (or of a div it inserts before its own script tag), so the
 * host page's CSS cannot reach the widget and the widget's CSS cannot reach the page. JSON-LD (first
 * party reviews only) goes in a script element inside that host element, not in the page's head.
 */
export function widgetScript(d: WidgetData): string {
  return `(function(){"use strict";
var key=${jsString(d.key)},css=${jsString(SHADOW_CSS)},html=${jsString(widgetHtml(d))},ld=${d.jsonLd ? jsString(jsonLdText(d.jsonLd)) : "null"};
var api=window.ReputationWidgets;
if(!api){api={widgets:{},mount:function(el){var w=api.widgets[el.getAttribute("data-reputation-widget")];if(!w||el.shadowRoot)return;var root=el.attachShadow({mode:"open"});root.innerHTML="<style>"+w.css+"</style>"+w.html;if(w.ld){var s=document.createElement("script");s.type="application/ld+json";s.textContent=w.ld;el.appendChild(s);}}};Object.defineProperty(window,"ReputationWidgets",{value:api});}
api.widgets[key]={css:css,html:html,ld:ld};
var els=document.querySelectorAll('[data-reputation-widget="'+key+'"]');
if(!els.length&&document.currentScript&&document.currentScript.parentNode){var el=document.createElement("div");el.setAttribute("data-reputation-widget",key);document.currentScript.parentNode.insertBefore(el,document.currentScript);els=[el];}
for(var i=0;i<els.length;i++)api.mount(els[i]);
})();
`;
}

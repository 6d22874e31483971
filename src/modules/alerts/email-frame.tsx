/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { htmlDocument } from "../../lib/html";

/**
 * The frame of alert and digest emails (hono/jsx: every value escaped by construction): a real
 * document (lang, title, one h1), a single column of at most 600px, text at least 16px, colours with
 * 4.5:1 contrast or more, data tables with a caption and header cells, and stars spelled out for
 * screen readers ("4 of 5 stars"). Inline styles only: mail clients drop <style> blocks and never run script.
 */
export function emailDocument(o: {
  title: string;
  preheader: string;
  children: Child;
  unsubscribeUrl: string;
  unsubscribeLabel: string;
  lang?: string;
}): string {
  return htmlDocument(
    <html lang={o.lang ?? "en"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>{o.title}</title>
      </head>
      <body style="margin:0;padding:0;background:#f4f5f7;color:#1d2433;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif">
        <div style="display:none;max-height:0;overflow:hidden">{o.preheader}</div>
        <main style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff">
          {o.children}
          <footer style="margin-top:32px;padding-top:16px;border-top:1px solid #d0d5dd;color:#4a5568;font-size:14px">
            <p>
              You receive this because of your review alert settings.{" "}
              <a href={o.unsubscribeUrl} style="color:#1d3fa8">
                {o.unsubscribeLabel}
              </a>
            </p>
          </footer>
        </main>
      </body>
    </html>,
  );
}

export const starsLabel = (rating: number | null) =>
  rating === null ? "no rating" : `${Number(rating.toFixed(1))} of 5 stars`;

/** ★★★★☆ for the eye, hidden from screen readers, which read the label instead. */
export function Stars({ rating }: { rating: number | null }) {
  if (rating === null) return <>no rating</>;
  const full = Math.round(rating);
  return (
    <>
      <span aria-hidden="true">{"★".repeat(full) + "☆".repeat(5 - full)}</span> <span>{starsLabel(rating)}</span>
    </>
  );
}

export const excerpt = (text: string | null, max = 280) => {
  const t = (text ?? "").replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

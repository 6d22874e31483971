import type { JSX } from "hono/jsx/jsx-runtime";

/*
 * Every piece of HTML the service builds is hono/jsx (docs/SECURITY.md, "Escaping by construction"):
 * text and attribute values are escaped by the renderer, so a review, a brand name or a URL can never
 * become markup. Only constants of our own (a stylesheet, a built script) enter as raw text, through
 * `dangerouslySetInnerHTML` on <style> and <script>. test/node/html-by-construction.test.ts keeps it so.
 */

/** A rendered element as text (our components are synchronous: no async component, no Suspense). */
export function renderHtml(node: JSX.Element): string {
  const out = node as unknown;
  if (out instanceof Promise) throw new Error("renderHtml: an async component reached a synchronous page");
  return String(out);
}

/** A whole page: the doctype, then the <html> element. */
export const htmlDocument = (page: JSX.Element): string => `<!doctype html>${renderHtml(page)}`;

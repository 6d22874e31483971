import type { Context } from "hono";
import type { AppEnv } from "../app-env";

/**
 * The API reference page renders Swagger UI from jsDelivr with an inline bootstrap script; it shows
 * no user data, so inline script is tolerable there, but nothing may frame it or load other origins.
 */
const DOCS_CSP =
  "default-src 'none'; script-src https://cdn.jsdelivr.net 'unsafe-inline'; style-src https://cdn.jsdelivr.net 'unsafe-inline'; " +
  "img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** For an HTML response that set no policy of its own. */
const FALLBACK_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Baseline headers on every response (OWASP API8), set on the way out by the request-id layer
 * (request-id.ts) with the request's id: no MIME sniffing; HTML pages get no referrer (their URLs carry
 * tokens), a CSP and no framing unless the page set stricter ones itself.
 */
export function finishHeaders(c: Context<AppEnv>, requestId: string): void {
  const headers = c.res.headers;
  // the common case (JSON, a redirect, a script): one lookup for the type, one for nosniff, two sets
  if (!(headers.get("content-type") ?? "").includes("text/html")) {
    setAll(
      c,
      headers.has("x-content-type-options")
        ? [["x-request-id", requestId]]
        : [
            ["x-request-id", requestId],
            ["x-content-type-options", "nosniff"],
          ],
    );
    return;
  }
  const wanted: [string, string][] = [
    ["x-content-type-options", "nosniff"],
    ["referrer-policy", "no-referrer"],
  ];
  // a page whose own CSP lets others frame it (the review widget page) keeps that decision
  if (!/frame-ancestors (?!'none')/.test(headers.get("content-security-policy") ?? ""))
    wanted.push(["x-frame-options", "DENY"]);
  wanted.push(["content-security-policy", c.req.path === "/docs" ? DOCS_CSP : FALLBACK_CSP]);
  const missing = wanted.filter(([name]) => !headers.has(name));
  missing.push(["x-request-id", requestId]);
  setAll(c, missing);
}

function setAll(c: Context<AppEnv>, values: [string, string][]) {
  // a response passed through from fetch() has immutable headers: re-wrap it once
  if (!trySet(c.res.headers, values)) {
    c.res = new Response(c.res.body, c.res);
    trySet(c.res.headers, values);
  }
}

function trySet(headers: Headers, values: [string, string][]): boolean {
  try {
    for (const [name, value] of values) headers.set(name, value);
    return true;
  } catch {
    return false;
  }
}

import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
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
 * Baseline headers on every response (OWASP API8): no MIME sniffing; HTML pages get no referrer
 * (their URLs carry tokens), a CSP and no framing unless the page set stricter ones itself.
 */
export const securityHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const headers = c.res.headers;
  // the common case (JSON, a redirect, a script) costs two header lookups and one set: no arrays
  if (!(headers.get("content-type") ?? "").includes("text/html")) {
    if (!headers.has("x-content-type-options")) setAll(c, [["x-content-type-options", "nosniff"]]);
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
  if (missing.length > 0) setAll(c, missing);
});

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

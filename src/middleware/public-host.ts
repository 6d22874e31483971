import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { ApiError } from "../lib/errors";
import { canonicalHostname, type HostGuard } from "../lib/host-guard";
import { log } from "../lib/log";
import { inactiveLinkPage, PAGE_HEADERS, wantsHtml } from "../modules/links/page";
import {
  customHostOwner,
  type HostOwner,
  hostBrand,
  hostServesTenant,
  tenantWhiteLabel,
} from "../modules/white-label/resolve";

/**
 * The custom-host boundary (docs/white-label.md, docs/SECURITY.md "Custom hosts"): the one place that
 * decides which owner a request's host serves. Every request gets
 *
 * - `c.var.customHost`: the active custom hostname it arrived on and its owner (null on the platform's
 *   host, localhost, IP literals and unknown or pending hosts: those serve every tenant);
 * - `c.var.hostGuard(tenantId)`: what a public route calls with the owner of the resource it is about
 *   to serve, before it serves it or records anything. On a custom host that does not serve that
 *   tenant it throws `ForeignHostError` (404). Routes never compare hosts themselves.
 * - `c.var.agencyHostGuard(agencyId)`: the same for a resource of an agency itself (its brand's logo):
 *   served on the agency's hosts and its tenants' hosts.
 *
 * Fail closed: on a custom host, an unauthenticated request that answered 2xx/3xx without asking the
 * guard is replaced by the host's 404, unless its path is one of the host-neutral ones below (sign-in,
 * OAuth, MCP, provider webhooks, docs, health: they serve no tenant's public resource). So a new
 * public route that forgets the guard shows nothing on a foreign host (test/white-label/public-host.test.ts
 * enumerates the OpenAPI document's public operations).
 *
 * Cost: the host's owner and the tenant's agency come from the isolate caches of white-label/resolve.ts
 * (60 s, misses cached too); a hot request reads nothing from D1 for this. On the platform's host the
 * guard returns at once.
 */

/** Another owner's resource on a custom host: a 404 like an unknown one (the host's brand on HTML pages). */
export class ForeignHostError extends ApiError {
  constructor() {
    super("NOT_FOUND", "Not found");
  }
}

/**
 * Paths that serve no tenant's public resource and answer on every host as on the platform's:
 * the console (its sign-in admits only people with a role on the host), platform health and bootstrap,
 * sign-in (password, SAML, the SSO completion page), a signed-in
 * person's own account pages (/account/*: account mail links there on the host of its brand), OAuth and its
 * discovery, MCP, provider and review-site webhooks (signed by the provider or carrying the
 * integration's secret), the API's documentation.
 */
const HOST_NEUTRAL = [
  // the console decides for itself: on a custom host only people with a role there sign in, and each
  // tenant page asks the guard (src/modules/console/guards.ts)
  /^\/$/,
  /^\/app(\/|$)/,
  /^\/reset-password$/,
  /^\/setup-password$/,
  /^\/health$/,
  /^\/bootstrap$/,
  /^\/auth\//,
  /^\/sso\//,
  /^\/account\//,
  /^\/oauth\//,
  /^\/\.well-known\//,
  /^\/mcp(\/|$)/,
  /^\/skills$/,
  /^\/webhooks\/providers\//,
  /^\/webhooks\/review-sites\//,
  /^\/docs(\/|$)/,
];
export const isHostNeutralPath = (path: string) => HOST_NEUTRAL.some((re) => re.test(path));

const primaryHosts = new Map<string, string>();
const primaryHost = (publicBaseUrl: string) => {
  let h = primaryHosts.get(publicBaseUrl);
  if (h === undefined) {
    h = canonicalHostname(new URL(publicBaseUrl).hostname);
    primaryHosts.set(publicBaseUrl, h);
  }
  return h;
};

/**
 * The hostname of a request's URL, lower-cased, as `new URL(url).hostname` gives it (IPv6 in brackets),
 * read from the string: the runtime hands the Worker an absolute, normalised URL, and building a URL
 * object per request was a measurable share of every request (docs/performance.md).
 */
export function hostnameOf(url: string): string {
  const start = url.indexOf("//") + 2;
  let end = start;
  while (end < url.length) {
    const ch = url.charCodeAt(end);
    // "/", "?", "#" end the authority
    if (ch === 47 || ch === 63 || ch === 35) break;
    end++;
  }
  // user info ("user:pass@") never reaches a Worker from the network, but a service binding may pass it
  const authority = url.slice(Math.max(start, url.lastIndexOf("@", end) + 1), end);
  if (authority.startsWith("[")) return authority.slice(0, authority.indexOf("]") + 1).toLowerCase();
  const colon = authority.lastIndexOf(":");
  return (colon < 0 ? authority : authority.slice(0, colon)).toLowerCase();
}

/**
 * The hostname the guard compares: the request's, as the URL parser spells it, trailing dots removed,
 * port ignored (canonicalHostname), so `Reviews.Tenant-A.test.` and `reviews.tenant-a.test:8443` are
 * the custom host `reviews.tenant-a.test` and never pass for an unknown host (which serves every tenant).
 */
export const requestHostname = (url: string) => canonicalHostname(hostnameOf(url));

/** Only DNS names with a dot can be custom hostnames: localhost and IP literals never are. */
const mayBeCustom = (host: string) => host.includes(".") && !/^[\d.]+$/.test(host) && !host.startsWith("[");

/** True when `host` serves `tenantId` (the comparison itself lives in resolve.ts: hostServesTenant). */
async function serves(c: Context<AppEnv>, host: HostOwner, tenantId: string): Promise<boolean> {
  if (host.scope === "tenant" && host.scopeId === tenantId) return true;
  const wl = await tenantWhiteLabel(c.var.control, tenantId);
  return !!wl && hostServesTenant(host, wl);
}

async function hostNotFound(c: Context<AppEnv>, host: HostOwner): Promise<Response> {
  if (wantsHtml(c.req.header("accept")))
    return new Response(inactiveLinkPage(await hostBrand(c.get("control"), host)), {
      status: 404,
      headers: PAGE_HEADERS,
    });
  const err = new ForeignHostError();
  return Response.json(err.toBody(), { status: 404, headers: { "cache-control": "no-store" } });
}

export const publicHost = createMiddleware<AppEnv>(async (c, next) => {
  const hostname = requestHostname(c.req.url);
  const host =
    hostname !== primaryHost(c.env.PUBLIC_BASE_URL) && mayBeCustom(hostname)
      ? await customHostOwner(c.get("control"), hostname)
      : null;
  let asked = false;
  c.set("customHost", host);
  const guard: HostGuard = async (tenantId) => {
    asked = true;
    if (host && !(await serves(c, host, tenantId))) throw new ForeignHostError();
  };
  c.set("hostGuard", guard);
  // an agency's own resource (its brand's logo): served on its hosts and its tenants' hosts
  c.set("agencyHostGuard", async (agencyId: string) => {
    asked = true;
    if (host && host.agencyId !== agencyId) throw new ForeignHostError();
  });
  await next();
  if (!host) return;
  const refused = c.error instanceof ForeignHostError && wantsHtml(c.req.header("accept"));
  const unguarded =
    !asked && c.res.status < 400 && c.req.method !== "OPTIONS" && !c.get("principal") && !isHostNeutralPath(c.req.path);
  if (refused || unguarded) {
    if (unguarded)
      log.warn("public route answered on a custom host without asking the host guard", { path: c.req.path });
    // unset first: hono copies the old response's headers (location, cache-control) onto a replacement
    c.res = undefined;
    c.res = await hostNotFound(c, host);
  }
});

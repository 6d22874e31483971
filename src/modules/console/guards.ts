import type { MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { createMiddleware } from "hono/factory";
import { NONCE, secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../lib/errors";
import { baseUrl } from "../../lib/urls";
import { enterTenant, requireAgencyScope, requirePlatformAdmin } from "../../middleware/tenant";
import { formExpiredPage, refusedPage } from "./errors";
import { asRest, type CC, formOf, redirectTo } from "./kit";
import { consoleSession, csrfValid } from "./session";

/*
 * The console's request pipeline (docs/console.md, "Every request"), in this order:
 *   1. consoleHeaders: a CSP with a fresh nonce per response (script and style only with it; images, fetches,
 *      frames and form posts only to this origin; no framing of the console), no referrer, no sniffing;
 *   2. sameOriginPosts (hono/csrf): a state-changing form must come from a page of this origin
 *      (Sec-Fetch-Site, else Origin), whether or not anyone is signed in (sign-in forms included);
 *   3. signedIn: the person of the session cookie (else to the sign-in page) and, on every post, the
 *      session's own CSRF token in the form;
 *   4. inTenant (pages under /app/t/{tenantId}): the host guard (a custom host serves only its owner's
 *      tenants), then the same tenant fence as REST (middleware/tenant.ts enterTenant: access, shard, move fence);
 *      or, for the pages outside a tenant, the check of their REST twins' paths: /app/agency REST /agency's
 *      (requireAgencyScope), /app/platform REST /admin's (requirePlatformAdmin).
 * Role checks are REST's own middleware (requireRole) on each form's route; handlers call REST's services.
 */

export const consoleHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: [NONCE],
    styleSrc: [NONCE],
    imgSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    // the Widgets page previews the public widget page of this origin (pages/widgets.tsx)
    frameSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  xFrameOptions: "DENY",
  referrerPolicy: "no-referrer",
  crossOriginResourcePolicy: "same-origin",
  strictTransportSecurity: false,
});

/** This request's origin, or PUBLIC_BASE_URL's (a proxy in front may rewrite the URL the Worker sees). */
export const sameOriginPosts = csrf({
  origin: (origin, c) => origin === new URL(c.req.url).origin || origin === new URL(baseUrl(c.env)).origin,
});

const isWrite = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method);

export const signedIn = createMiddleware<AppEnv>(async (c, next) => {
  const session = await consoleSession(c);
  if (!session) {
    const back = isWrite(c.req.method) ? "/app" : new URL(c.req.url).pathname + new URL(c.req.url).search;
    return redirectTo(c, `/?next=${encodeURIComponent(back)}`);
  }
  c.set("consoleSession", session);
  c.set("principal", session.principal);
  if (isWrite(c.req.method)) {
    const form = await formOf(c as CC);
    if (!(await csrfValid(c.env, session, form.one("csrf")))) return formExpiredPage(c as CC);
  }
  await next();
});

/** /app/t/{tenantId}/…: the host guard, then REST's tenant fence for this tenant. */
export const inTenant = createMiddleware<AppEnv>(async (c, next) => {
  const tenantId = c.req.param("tenantId") ?? "";
  await c.var.hostGuard(tenantId);
  await enterTenant(c, tenantId, next);
});

/**
 * Pages outside a tenant behind a REST path's own check: the same middleware, its FORBIDDEN as a 403 page
 * that says who the pages are for (the console's error page turns a FORBIDDEN without a tenant into a 404,
 * which fits a tenant the person cannot see, not a door REST answers 403).
 */
function outsideTenant(rest: MiddlewareHandler<AppEnv>, refusal: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    try {
      await asRest(c as CC, rest);
    } catch (e) {
      if (e instanceof ApiError && e.code === "FORBIDDEN") return refusedPage(c as CC, refusal, 403);
      throw e;
    }
    await next();
  });
}

/** /app/agency/…: REST /agency's check (an agency's admin, or the platform admin). */
export const forAgencyAdmins = outsideTenant(
  requireAgencyScope,
  "These pages are for the admins of an agency; your account administers none.",
);

/** /app/platform/…: REST /admin's check (the platform admin). */
export const forPlatformAdmins = outsideTenant(requirePlatformAdmin, "These pages are for the platform's admins.");

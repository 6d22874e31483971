import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { MAX_PASSWORD_BYTES, randomToken } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { createRouter, type Router } from "../../lib/openapi";
import {
  type BrowserSession,
  csrfToken,
  csrfValid,
  endBrowserSession,
  readBrowserSession,
  sameOrigin,
  startBrowserSession,
} from "../../middleware/browser-session";
import { requestMeta } from "../../middleware/service-context";
import { checkPassword } from "../auth/service";
import { hostBrand } from "../white-label/resolve";
import { CONNECTED_APPS_PATH, listPage, messagePage, signInPage } from "./connected-apps-page";
import { listUserGrantsView, revokeUserGrant } from "./grants";

type C = Context<AppEnv>;

/** HTML with a per-response nonce for the page's one style block and one script. */
function html(body: (nonce: string) => string, status = 200, extra: Record<string, string> = {}) {
  const nonce = randomToken(16);
  return new Response(body(nonce), {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "x-frame-options": "DENY",
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' https:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      ...extra,
    },
  });
}

const redirect = (location: string, extra: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...extra } });

const brandOf = (c: C) => hostBrand(c.var.control, c.var.customHost);
const wantsJson = (c: C) => (c.req.header("accept") ?? "").includes("application/json");

/** The live browser session of the request's cookie and its still active user (docs/sessions.md), or null. */
const signedIn = (c: C): Promise<BrowserSession | null> => readBrowserSession(c);

async function formFields(c: C): Promise<(name: string) => string> {
  const form = await c.req.formData().catch(() => new FormData());
  return (name) => {
    const v = form.get(name);
    return typeof v === "string" ? v : "";
  };
}

/** GET: the list for a signed-in user, the sign-in form otherwise. */
async function show(c: C): Promise<Response> {
  const brand = await brandOf(c);
  const who = await signedIn(c);
  if (!who) return html((n) => signInPage(brand, n));
  const { data } = await listUserGrantsView(c.env, who.principal.userId);
  const csrf = await csrfToken(c.env, who.session.id);
  const revoked = c.req.query("revoked") === "1";
  return html((n) => listPage({ email: who.principal.email, grants: data, csrf, revoked }, brand, n));
}

/** POST sign-in: the same password check as POST /auth/login (its throttling included), then a browser session. */
async function signInSubmit(c: C): Promise<Response> {
  const brand = await brandOf(c);
  if (!sameOrigin(c.env, c.req.url, c.req.raw.headers))
    return html((n) => messagePage("Sign-in refused", "This form was sent from another site.", brand, n), 403);
  const field = await formFields(c);
  const email = field("email").trim().toLowerCase();
  const password = field("password");
  const refuse = (message: string, status: number, headers?: Record<string, string>) =>
    html((n) => signInPage(brand, n, message), status, headers);
  if (!email || password.length < 8 || new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES)
    return refuse("Invalid email or password.", 401);
  let userId: string;
  try {
    userId = (await checkPassword(c.var.control, c.env, requestMeta(c).ip, email, password)).id;
  } catch (e) {
    if (e instanceof ApiError && e.code === "UNAUTHENTICATED") return refuse("Invalid email or password.", 401);
    if (e instanceof ApiError && e.code === "RATE_LIMITED")
      return refuse("Too many sign-in attempts; wait a few minutes.", 429, e.headers);
    throw e;
  }
  const { cookie } = await startBrowserSession(c.var.control, c.env, userId, "password");
  return redirect(CONNECTED_APPS_PATH, { "set-cookie": cookie });
}

/**
 * Every state-changing post of a signed-in page passes three checks: a session cookie (else back to
 * sign-in), the same origin (Origin / Sec-Fetch-Site), and the session's CSRF token in the form.
 */
async function guardedPost(c: C): Promise<{ ok: true; session: BrowserSession } | { ok: false; response: Response }> {
  const brand = await brandOf(c);
  const who = await signedIn(c);
  if (!who) {
    if (wantsJson(c))
      return {
        ok: false,
        response: Response.json({ error: "Sign in again", code: "UNAUTHENTICATED" }, { status: 401 }),
      };
    return { ok: false, response: redirect(CONNECTED_APPS_PATH) };
  }
  const field = await formFields(c);
  if (!sameOrigin(c.env, c.req.url, c.req.raw.headers) || !(await csrfValid(c.env, who.session.id, field("csrf")))) {
    if (wantsJson(c))
      return { ok: false, response: Response.json({ error: "CSRF check failed", code: "FORBIDDEN" }, { status: 403 }) };
    return {
      ok: false,
      response: html(
        (n) =>
          messagePage(
            "This form expired",
            "This form expired or came from another site; nothing was changed. Reload the page and try again.",
            brand,
            n,
          ),
        403,
      ),
    };
  }
  return { ok: true, session: who };
}

async function revokeSubmit(c: C): Promise<Response> {
  const guard = await guardedPost(c);
  if (!guard.ok) return guard.response;
  const userId = guard.session.principal.userId;
  try {
    const grant = await revokeUserGrant(
      {
        env: c.env,
        actor: { type: "user", userId, via: "tenant" },
        meta: requestMeta(c),
        defer: (work) => c.executionCtx.waitUntil(work),
      },
      userId,
      c.req.param("grantId") ?? "",
    );
    if (wantsJson(c)) return Response.json({ revoked: grant.id, clientName: grant.clientName });
    return redirect(`${CONNECTED_APPS_PATH}?revoked=1`);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === "NOT_FOUND")) throw e;
    if (wantsJson(c)) return Response.json({ error: "Grant not found", code: "NOT_FOUND" }, { status: 404 });
    const brand = await brandOf(c);
    return html(
      (n) =>
        messagePage(
          "App not found",
          "This app is not among your connected apps (it may be disconnected already).",
          brand,
          n,
        ),
      404,
    );
  }
}

async function signOutSubmit(c: C): Promise<Response> {
  const guard = await guardedPost(c);
  if (!guard.ok) return guard.response;
  // the session ends on the server, not only in this browser (docs/sessions.md)
  const cleared = await endBrowserSession(c.var.control, c.env, guard.session.session.id);
  return redirect(CONNECTED_APPS_PATH, { "set-cookie": cleared });
}

/**
 * /account/connected-apps: the signed-in page of a user's OAuth grants (docs/mcp.md, Connected apps).
 * Works without script (form posts, 303 back); with script, revoke posts by fetch. HTML pages, so
 * not in the OpenAPI document; the REST twin is /me/oauth-grants (me.routes.ts).
 */
export const connectedAppsRoutes: Router = createRouter();
connectedAppsRoutes.get(CONNECTED_APPS_PATH, show);
connectedAppsRoutes.post(`${CONNECTED_APPS_PATH}/sign-in`, signInSubmit);
connectedAppsRoutes.post(`${CONNECTED_APPS_PATH}/sign-out`, signOutSubmit);
connectedAppsRoutes.post(`${CONNECTED_APPS_PATH}/:grantId/revoke`, revokeSubmit);

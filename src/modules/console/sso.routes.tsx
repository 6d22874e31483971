/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../lib/errors";
import { PASSWORD_SIGN_IN } from "../identity/access";
import { loadUserPrincipal } from "../identity/service";
import { reachesHost } from "../tenants/reachable";
import { claimUserToken, peekUserToken } from "../users/tokens";
import { type CC, page, redirectTo } from "./kit";
import { SsoContinue, TokenProblem } from "./pages/sign-in";
import { beginConsoleSession } from "./session";

/*
 * The end of SAML sign-in (decisions.md, "SAML back to the console"): the callback sends the browser to
 * /sso/complete?code=, a single-use code valid for a minute. The console
 *   1. moves the code out of the address bar at once (into an HttpOnly cookie for this page only, then a
 *      redirect to /sso/complete): no history entry, bookmark or referrer keeps it;
 *   2. shows who the identity provider signed in and asks to continue, so a code someone else pushed to
 *      this browser (a link to their own sign-in) signs no one in by itself;
 *   3. on that same-origin post, spends the code (claimUserToken: once, of two concurrent posts one wins)
 *      and opens the console's session.
 */

const CODE_COOKIE = "sso-code";
const PATH = "/sso/complete";

async function landing(c: CC): Promise<Response> {
  const code = c.req.query("code");
  if (code) {
    setCookie(c, CODE_COOKIE, code.slice(0, 200), {
      path: PATH,
      httpOnly: true,
      sameSite: "Lax",
      secure: new URL(c.req.url).protocol === "https:",
      maxAge: 60,
    });
    return redirectTo(c, PATH);
  }
  const held = getCookie(c, CODE_COOKIE);
  const row = held ? await peekUserToken(c.var.control, held, "sso") : null;
  const person = row ? await loadUserPrincipal(c.var.control, row.userId, PASSWORD_SIGN_IN) : null;
  if (!person) return page(c, { title: "Sign-in failed", status: 400 }, <TokenProblem kind="sso" />);
  return page(c, { title: "Continue signing in" }, <SsoContinue email={person.email} />);
}

async function exchange(c: CC): Promise<Response> {
  const held = getCookie(c, CODE_COOKIE);
  deleteCookie(c, CODE_COOKIE, { path: PATH });
  let userId: string;
  let ssoTenantId: string | null;
  try {
    if (!held) throw new ApiError("INVALID_TOKEN", "no code");
    const row = await claimUserToken(c.var.control, held, "sso");
    userId = row.userId;
    ssoTenantId = row.tenantId;
  } catch (e) {
    if (e instanceof ApiError && e.code === "INVALID_TOKEN")
      return page(c, { title: "Sign-in failed", status: 400 }, <TokenProblem kind="sso" />);
    throw e;
  }
  const host = c.var.customHost;
  const person = await loadUserPrincipal(
    c.var.control,
    userId,
    ssoTenantId ? { method: "sso", tenantId: ssoTenantId } : PASSWORD_SIGN_IN,
  );
  if (!person || (host && !(await reachesHost(c.var.control, person, host))))
    return page(c, { title: "Sign-in failed", status: 403 }, <TokenProblem kind="sso" />);
  const cookie = await beginConsoleSession(c, userId, "saml", ssoTenantId);
  return redirectTo(c, "/app", undefined, { "set-cookie": cookie });
}

export const ssoRoutes = new Hono<AppEnv>().get(PATH, landing).post(PATH, exchange);

import { createRoute } from "@hono/zod-openapi";
import { unauthenticated } from "../../lib/errors";
import { createRouter, errors, json, jsonBody, type Router, stdErrors, USER_SECURITY } from "../../lib/openapi";
import { authenticate } from "../../middleware/auth";
import { requestMeta } from "../../middleware/service-context";
import type { Principal } from "../identity/access";
import { endSession, endUserSessions } from "../identity/sessions";
import { forgotPassword, resetPassword, setupPassword } from "./password.service";
import {
  ForgotPasswordBody,
  LoginBody,
  LoginResponse,
  LogoutResponse,
  OkResponse,
  ResetPasswordBody,
  ResetPasswordResponse,
  SetupPasswordBody,
} from "./schemas";
import { login } from "./service";

const loginRoute = createRoute({
  method: "post",
  path: "/auth/login",
  operationId: "login",
  security: [],
  tags: ["Auth"],
  summary: "Exchange email and password for a session JWT (8 hours)",
  request: { body: jsonBody(LoginBody) },
  description:
    "Repeated failures for one email or client IP are slowed, then refused with 429 RATE_LIMITED and Retry-After (thresholds in docs/agency.md).",
  responses: { 200: json(LoginResponse), 400: stdErrors[400], 401: stdErrors[401], 429: errors[429] },
});

const setupPasswordRoute = createRoute({
  method: "post",
  path: "/auth/setup-password",
  operationId: "acceptInvite",
  security: [],
  tags: ["Auth"],
  summary: "Accept an invite: set name and password, get a session",
  description: "Invite tokens last 7 days and work once; an invalid, used or expired token is 400 INVALID_TOKEN.",
  request: { body: jsonBody(SetupPasswordBody) },
  responses: { 200: json(LoginResponse), 400: stdErrors[400] },
});

const forgotPasswordRoute = createRoute({
  method: "post",
  path: "/auth/forgot-password",
  operationId: "requestPasswordReset",
  security: [],
  tags: ["Auth"],
  summary: "Email a password-reset token (1 hour, single use) if the account exists; always ok",
  request: { body: jsonBody(ForgotPasswordBody) },
  responses: { 200: json(OkResponse), 400: stdErrors[400] },
});

const resetPasswordRoute = createRoute({
  method: "post",
  path: "/auth/reset-password",
  operationId: "resetPassword",
  security: [],
  tags: ["Auth"],
  summary: "Set a new password with a reset token, and sign in",
  description:
    "An invalid, used or expired token is 400 INVALID_TOKEN. Every outstanding reset token of the account is spent, every earlier session ends (docs/sessions.md) and the answer carries a new session JWT. Connected apps and API keys keep working; a mail tells the account's address and lists them.",
  request: { body: jsonBody(ResetPasswordBody) },
  responses: { 200: json(ResetPasswordResponse), 400: stdErrors[400] },
});

const logoutRoute = createRoute({
  method: "post",
  path: "/auth/logout",
  operationId: "logout",
  tags: ["Auth"],
  summary: "Sign out: end the session of this token",
  description:
    "Ends the session the bearer JWT belongs to (docs/sessions.md): the token, and every MCP session opened with it, stop working at once here and within a minute everywhere. Other sessions of the account are untouched. Needs a session JWT (an API key is 401).",
  security: USER_SECURITY,
  middleware: [authenticate],
  responses: { 200: json(LogoutResponse), 401: stdErrors[401] },
});

const logoutAllRoute = createRoute({
  method: "post",
  path: "/auth/logout-all",
  operationId: "logoutAll",
  tags: ["Auth"],
  summary: "Sign out everywhere: end every session of the account",
  description:
    "Ends every session of the signed-in account, this one included: session JWTs, browser sessions (account pages, console) and the MCP sessions opened with them. Connected apps (OAuth grants) and API keys are separate credentials and keep working: revoke them at /me/oauth-grants and /v1/api-keys. Needs a session JWT (an API key is 401).",
  security: USER_SECURITY,
  middleware: [authenticate],
  responses: { 200: json(LogoutResponse), 401: stdErrors[401] },
});

/** The signed-in person and the session of the request's session JWT; anything else (an API key) is 401. */
function signedIn(p: Principal): { userId: string; sessionId: string } {
  if (p.kind !== "user" || !p.sessionId) throw unauthenticated("A session JWT is required");
  return { userId: p.userId, sessionId: p.sessionId };
}

export const authRoutes: Router = createRouter()
  .openapi(loginRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    return c.json(await login(c.var.control, c.env, requestMeta(c).ip, email, password), 200);
  })
  .openapi(setupPasswordRoute, async (c) =>
    c.json(await setupPassword(c.var.control, c.env, requestMeta(c), c.req.valid("json")), 200),
  )
  .openapi(forgotPasswordRoute, async (c) =>
    c.json(
      await forgotPassword(c.var.control, c.env, requestMeta(c), c.req.valid("json").email, (w) =>
        c.executionCtx.waitUntil(w),
      ),
      200,
    ),
  )
  .openapi(resetPasswordRoute, async (c) =>
    c.json(
      await resetPassword(c.var.control, c.env, requestMeta(c), c.req.valid("json"), (w) =>
        c.executionCtx.waitUntil(w),
      ),
      200,
    ),
  )
  .openapi(logoutRoute, async (c) => {
    const { sessionId } = signedIn(c.var.principal);
    return c.json({ ended: (await endSession(c.var.control, sessionId, "logout")) ? 1 : 0 }, 200);
  })
  .openapi(logoutAllRoute, async (c) => {
    const { userId } = signedIn(c.var.principal);
    return c.json({ ended: await endUserSessions(c.var.control, userId, "logout_all") }, 200);
  });

import { createRoute, z } from "@hono/zod-openapi";
import { unauthenticated } from "../../lib/errors";
import { createRouter, errors, json, jsonBody, stdErrors, USER_SECURITY } from "../../lib/openapi";
import { requestMeta } from "../../middleware/service-context";
import { getMe } from "./me.service";
import { forgotPassword, resetPassword, setupPassword } from "./password.service";
import {
  ForgotPasswordBody,
  LoginBody,
  LoginResponse,
  MeResponse,
  OkResponse,
  ResetPasswordBody,
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
  summary: "Set a new password with a reset token",
  description:
    "An invalid, used or expired token is 400 INVALID_TOKEN. Every outstanding reset token of the account is spent.",
  request: { body: jsonBody(ResetPasswordBody) },
  responses: { 200: json(OkResponse), 400: stdErrors[400] },
});

const meRoute = createRoute({
  method: "get",
  path: "/me",
  operationId: "getMe",
  tags: ["Auth"],
  summary: "The caller's profile and role assignments",
  security: USER_SECURITY,
  request: { headers: z.object({ "x-tenant-id": z.string().optional() }) },
  responses: { 200: json(MeResponse), 401: stdErrors[401] },
});

export const authRoutes = createRouter()
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
    c.json(await resetPassword(c.var.control, c.env, requestMeta(c), c.req.valid("json")), 200),
  )
  .openapi(meRoute, async (c) => {
    const p = c.var.principal;
    if (p.kind !== "user") throw unauthenticated("A user credential is required");
    return c.json(await getMe(c.var.control, p, c.req.valid("header")["x-tenant-id"]?.trim()), 200);
  });

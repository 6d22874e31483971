/** @jsxImportSource hono/jsx */
import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { MAX_PASSWORD_BYTES } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { requestMeta } from "../../middleware/service-context";
import { acceptInvite, forgotPassword, resetWithToken } from "../auth/password.service";
import { ForgotPasswordBody, ResetPasswordBody, SetupPasswordBody } from "../auth/schemas";
import { PASSWORD_SIGN_IN } from "../identity/access";
import { loadUserPrincipal } from "../identity/service";
import { reachesHost } from "../tenants/reachable";
import { hostBrand } from "../white-label/resolve";
import { type CC, formOf, page, redirectTo, safeNext } from "./kit";
import { ForgotForm, NewPasswordForm, SignInForm, TokenProblem } from "./pages/sign-in";
import {
  beginConsoleSession,
  checkPasswordSignIn,
  consoleSession,
  cookieOfSession,
  endConsoleSession,
  endEverySession,
  type SignInMethod,
} from "./session";

/*
 * Signing in and out (docs/console.md, "Signing in"). Each way in calls the same service as its REST twin
 * (POST /auth/login's password check and throttling, /auth/forgot-password, /auth/reset-password,
 * /auth/setup-password), then opens the console's session (session.ts). On a custom hostname only a person
 * with a role in a tenant it serves may sign in (the platform admin signs in on the platform's host).
 */

const brandName = async (c: CC) => (await hostBrand(c.var.control, c.var.customHost)).name;

/** `/`: the sign-in page for a visitor, the console for a signed-in person. */
async function home(c: CC): Promise<Response> {
  if (await consoleSession(c)) return c.redirect("/app", 303);
  return signInPage(c, { next: c.req.query("next") });
}

function signInPage(c: CC, o: { next?: string; email?: string; error?: string; status?: number }) {
  return brandName(c).then((name) =>
    page(
      c,
      { title: "Sign in", status: o.status },
      <SignInForm next={o.next ? safeNext(o.next) : undefined} email={o.email} error={o.error} brandName={name} />,
    ),
  );
}

/**
 * On a custom host, whether this person may use it: a role in a tenant the host serves (tenant host: that
 * tenant; agency host: its agency's tenants), whatever they hold elsewhere.
 */
async function mayUseHost(c: CC, userId: string): Promise<boolean> {
  const host = c.var.customHost;
  if (!host) return true;
  const person = await loadUserPrincipal(c.var.control, userId, PASSWORD_SIGN_IN);
  return !!person && reachesHost(c.var.control, person, host);
}

/** Opens the session and lands on `next` (the console's home by default). */
async function land(c: CC, userId: string, method: SignInMethod, next?: string): Promise<Response> {
  return landWith(c, await beginConsoleSession(c, userId, method), next);
}

const landWith = (c: CC, cookie: string, next?: string) =>
  redirectTo(c, safeNext(next), undefined, { "set-cookie": cookie });

async function signInSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const email = form.one("email").trim().toLowerCase();
  const password = form.one("password");
  const next = form.one("next") || undefined;
  const again = (error: string, status: number) => signInPage(c, { next, email, error, status });
  if (!email || password.length < 8 || new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES)
    return again("The email or password is wrong.", 401);
  let userId: string;
  try {
    userId = await checkPasswordSignIn(c, email, password);
  } catch (e) {
    if (e instanceof ApiError && e.code === "UNAUTHENTICATED")
      return again(
        e.details?.reason === "sso_required"
          ? "Your organization signs you in through its identity provider: use its sign-in link."
          : "The email or password is wrong.",
        401,
      );
    if (e instanceof ApiError && e.code === "RATE_LIMITED") {
      c.header("retry-after", e.headers?.["Retry-After"] ?? "60");
      return again("Too many sign-in attempts: wait a few minutes, then try again.", 429);
    }
    throw e;
  }
  if (!(await mayUseHost(c, userId)))
    return again(`This account has no access to ${await brandName(c)}. Sign in where your account was created.`, 403);
  return land(c, userId, "password", next);
}

async function forgotSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const parsed = ForgotPasswordBody.safeParse({ email: form.one("email").trim().toLowerCase() });
  if (!parsed.success)
    return page(c, { title: "Reset your password", status: 400 }, <ForgotForm error="Enter a valid email address." />);
  await forgotPassword(c.var.control, c.env, requestMeta(c), parsed.data.email, (w) => c.executionCtx.waitUntil(w));
  return page(c, { title: "Reset your password" }, <ForgotForm sent />);
}

/** The two password fields: the same rules as the REST bodies, and the same password twice. */
function passwordProblem(password: string, confirm: string): string | null {
  if (password !== confirm) return "The two passwords are not the same.";
  if (password.length < 8) return "The password needs at least 8 characters.";
  if (new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES) return "The password is too long.";
  return null;
}

async function resetForm(c: CC): Promise<Response> {
  const token = c.req.query("token") ?? "";
  if (!token) return page(c, { title: "Link not valid", status: 400 }, <TokenProblem kind="reset" />);
  return page(c, { title: "Choose a new password" }, <NewPasswordForm kind="reset" token={token} />);
}

async function resetSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const token = form.one("token");
  const problem = passwordProblem(form.one("password"), form.one("confirm"));
  const parsed = ResetPasswordBody.safeParse({ token, password: form.one("password") });
  if (problem || !parsed.success)
    return page(
      c,
      { title: "Choose a new password", status: 400 },
      <NewPasswordForm kind="reset" token={token} error={problem ?? "Check the password."} />,
    );
  let reset: Awaited<ReturnType<typeof resetWithToken>>;
  try {
    // every earlier session of the account ends in the reset's batch, and the console's new one opens in it
    reset = await resetWithToken(
      c.var.control,
      c.env,
      requestMeta(c),
      parsed.data,
      (w) => c.executionCtx.waitUntil(w),
      "cookie",
    );
  } catch (e) {
    if (e instanceof ApiError && e.code === "INVALID_TOKEN")
      return page(c, { title: "Link not valid", status: 400 }, <TokenProblem kind="reset" />);
    throw e;
  }
  if (!(await mayUseHost(c, reset.user.id)))
    return redirectTo(c, "/", {
      kind: "notice",
      text: "Your password is changed. Sign in where your account was created.",
    });
  return landWith(c, cookieOfSession(c.env, reset.session));
}

async function setupForm(c: CC): Promise<Response> {
  const token = c.req.query("token") ?? "";
  if (!token) return page(c, { title: "Link not valid", status: 400 }, <TokenProblem kind="invite" />);
  return page(c, { title: "Set your password" }, <NewPasswordForm kind="invite" token={token} />);
}

async function setupSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const token = form.one("token");
  const name = form.one("name").trim();
  const problem = passwordProblem(form.one("password"), form.one("confirm"));
  const parsed = SetupPasswordBody.safeParse({ inviteToken: token, name, password: form.one("password") });
  if (problem || !parsed.success)
    return page(
      c,
      { title: "Set your password", status: 400 },
      <NewPasswordForm kind="invite" token={token} name={name} error={problem ?? "Enter your name and a password."} />,
    );
  let accepted: Awaited<ReturnType<typeof acceptInvite>>;
  try {
    accepted = await acceptInvite(c.var.control, c.env, requestMeta(c), parsed.data, "cookie");
  } catch (e) {
    if (e instanceof ApiError && e.code === "INVALID_TOKEN")
      return page(c, { title: "Link not valid", status: 400 }, <TokenProblem kind="invite" />);
    throw e;
  }
  if (!(await mayUseHost(c, accepted.user.id)))
    return redirectTo(c, "/", {
      kind: "notice",
      text: "Your password is set. Sign in where your account was created.",
    });
  return landWith(c, cookieOfSession(c.env, accepted.session));
}

async function signOut(c: CC): Promise<Response> {
  const cookie = await endConsoleSession(c, c.var.consoleSession!);
  return redirectTo(c, "/", { kind: "notice", text: "You are signed out." }, { "set-cookie": cookie });
}

async function signOutEverywhere(c: CC): Promise<Response> {
  const cookie = await endEverySession(c, c.var.consoleSession!);
  return redirectTo(
    c,
    "/",
    { kind: "notice", text: "You are signed out on every device and browser." },
    { "set-cookie": cookie },
  );
}

/** Signed out: `/`, sign-in, forgot, reset and invite. */
export const signedOutRoutes = new Hono<AppEnv>()
  .get("/", home)
  .get("/app/sign-in", (c) =>
    c.redirect(`/${c.req.query("next") ? `?next=${encodeURIComponent(c.req.query("next")!)}` : ""}`, 303),
  )
  .post("/app/sign-in", signInSubmit)
  .get("/app/forgot-password", (c) => page(c, { title: "Reset your password" }, <ForgotForm />))
  .post("/app/forgot-password", forgotSubmit)
  .get("/reset-password", resetForm)
  .post("/reset-password", resetSubmit)
  .get("/setup-password", setupForm)
  .post("/setup-password", setupSubmit);

/** Signed in (behind guards.ts signedIn): sign out here, and everywhere. */
export const signOutRoutes = new Hono<AppEnv>()
  .post("/app/sign-out", signOut)
  .post("/app/sign-out-everywhere", signOutEverywhere);

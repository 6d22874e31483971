/** @jsxImportSource hono/jsx */

import { ApiError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import { requestMeta } from "../../../middleware/service-context";
import { updateMeOperation } from "../../auth/operations";
import { changeOwnPassword } from "../../auth/password.service";
import { ChangePasswordBody } from "../../auth/schemas";
import { act, type CC, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { cookieOfSession } from "../session";
import { NewPasswordFields } from "./sign-in";

/*
 * A person's own page (docs/console.md): their name (PATCH /me's operation, through callOperation), their
 * password (POST /me/password's service, not its operation: the operation answers a session JWT, the console
 * a new cookie session; the current one proved and throttled like a sign-in, every session of the account
 * ended, this browser's replaced by a new one), sign out here or everywhere.
 */

export async function mePage(c: CC): Promise<Response> {
  const person = c.var.consoleSession!.principal;
  const csrf = await csrfOf(c);
  return page(
    c,
    { title: "Your account", section: "me" },
    <>
      <h1>Your account</h1>
      <section class="card" aria-labelledby="profile">
        <h2 id="profile">Your name</h2>
        <form method="post" action="/app/me/name">
          <Csrf token={csrf} />
          <dl class="facts">
            <dt>Email</dt>
            <dd>{person.email}</dd>
          </dl>
          <label for="name">Name</label>
          <input id="name" name="name" type="text" required maxlength={200} value={person.name} autocomplete="name" />
          <div class="actions">
            <button type="submit">Save the name</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="password">
        <h2 id="password">Password</h2>
        <form method="post" action="/app/me/password">
          <Csrf token={csrf} />
          <label for="current">Current password</label>
          <input id="current" name="currentPassword" type="password" required autocomplete="current-password" />
          <NewPasswordFields
            name="newPassword"
            help="At least 8 characters. Changing it signs you out everywhere else; connected apps and API keys keep working."
          />
          <div class="actions">
            <button type="submit">Change the password</button>
          </div>
        </form>
        <p class="muted small">
          Forgot it? <a href="/app/forgot-password">Get a reset link by mail</a>.
        </p>
      </section>
      <section class="card" aria-labelledby="apps">
        <h2 id="apps">Connected apps</h2>
        <p>
          Apps such as an AI assistant that you allowed to act for you:{" "}
          <a href="/app/connected-apps">see and disconnect them</a>.
        </p>
      </section>
      <section class="card" aria-labelledby="sessions">
        <h2 id="sessions">Signing out</h2>
        <div class="actions">
          <form method="post" action="/app/sign-out">
            <Csrf token={csrf} />
            <button type="submit" class="secondary">
              Sign out
            </button>
          </form>
          <form method="post" action="/app/sign-out-everywhere">
            <Csrf token={csrf} />
            <button type="submit" class="danger">
              Sign out everywhere
            </button>
          </form>
        </div>
      </section>
    </>,
  );
}

export async function renameSubmit(c: CC): Promise<Response> {
  return act(c, "/app/me", async () => {
    const form = await formOf(c);
    await callOperation(c, updateMeOperation, { body: { name: form.one("name") } });
    return redirectTo(c, "/app/me", { kind: "notice", text: "Your name is saved." });
  });
}

export async function passwordSubmit(c: CC): Promise<Response> {
  return act(c, "/app/me", async () => {
    const form = await formOf(c);
    if (form.one("newPassword") !== form.one("confirm"))
      return redirectTo(c, "/app/me", { kind: "error", text: "The two new passwords are not the same." });
    const parsed = ChangePasswordBody.safeParse({
      currentPassword: form.one("currentPassword"),
      newPassword: form.one("newPassword"),
    });
    if (!parsed.success)
      return redirectTo(c, "/app/me", { kind: "error", text: "The new password needs at least 8 characters." });
    let changed: Awaited<ReturnType<typeof changeOwnPassword>>;
    try {
      changed = await changeOwnPassword(
        c.var.control,
        c.env,
        requestMeta(c),
        c.var.consoleSession!.principal.userId,
        parsed.data,
        (w) => c.executionCtx.waitUntil(w),
        "cookie",
      );
    } catch (e) {
      if (e instanceof ApiError && e.details?.reason === "current_password_incorrect")
        return redirectTo(c, "/app/me", { kind: "error", text: "The current password is wrong." });
      throw e;
    }
    // every session of the account ended in the change's batch; this browser continues on the new one
    return redirectTo(
      c,
      "/app/me",
      { kind: "notice", text: "Your password is changed. You are signed out everywhere else." },
      { "set-cookie": cookieOfSession(c.env, changed.session) },
    );
  });
}

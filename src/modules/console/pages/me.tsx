/** @jsxImportSource hono/jsx */

import { validationError } from "../../../lib/errors";
import { requestMeta } from "../../../middleware/service-context";
import { updateMyProfile } from "../../auth/me.service";
import { UpdateMeBody } from "../../auth/schemas";
import { act, type CC, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";

/*
 * A person's own page (docs/console.md): their name (PATCH /me's service), their password (the session
 * model's POST /me/password, wired when it lands), sign out here or everywhere.
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
        <p>
          To change your password, use <a href="/app/forgot-password">the reset link</a>: we mail you a link that sets a
          new one.
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
    const parsed = UpdateMeBody.safeParse({ name: form.one("name") });
    if (!parsed.success) throw validationError(parsed.error.issues.map((i) => ({ path: "name", message: i.message })));
    await updateMyProfile(c.var.control, c.env, requestMeta(c), c.var.consoleSession!.principal, parsed.data);
    return redirectTo(c, "/app/me", { kind: "notice", text: "Your name is saved." });
  });
}

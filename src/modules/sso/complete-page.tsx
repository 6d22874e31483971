/** @jsxImportSource hono/jsx */
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { randomToken } from "../../lib/crypto";
import { htmlDocument } from "../../lib/html";

/** sessionStorage key the page stores the session JWT under */
export const SESSION_STORAGE_KEY = "reputation-ops.session-token";

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
  main { max-width: 36rem; margin: 12vh auto; background: #fff; padding: 2rem 2.5rem; border-radius: 12px; box-shadow: 0 2px 12px rgba(0,0,0,.08); }
  h1 { font-size: 1.4rem; margin: 0 0 .75rem; }
  code { background: #eef0f4; padding: .1rem .35rem; border-radius: 4px; font-size: .9em; }
  a { color: #2451c7; }
  .error h1 { color: #b42318; }
`;

/** Stores the token, takes it out of the address bar, confirms it with GET /me. */
const SCRIPT = `
(function () {
  var KEY = ${JSON.stringify(SESSION_STORAGE_KEY)};
  var params = new URLSearchParams(location.search);
  var token = params.get("token");
  params.delete("token");
  var rest = params.toString();
  // the token must not stay in the address bar, the history or a bookmark
  history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  var title = document.getElementById("title");
  var message = document.getElementById("message");
  function fail(text) {
    document.getElementById("card").className = "error";
    title.textContent = "Sign-in did not complete";
    message.textContent = text;
  }
  if (!token) {
    fail("This link carries no session. Start again from your organization's sign-in link.");
    return;
  }
  sessionStorage.setItem(KEY, token);
  fetch("/me", { headers: { authorization: "Bearer " + token } })
    .then(function (res) { if (!res.ok) throw new Error(String(res.status)); return res.json(); })
    .then(function (me) {
      title.textContent = "You are signed in";
      message.textContent = "Signed in as " + me.name + " (" + me.email + ").";
      document.getElementById("next").hidden = false;
    })
    .catch(function () {
      sessionStorage.removeItem(KEY);
      fail("The session could not be confirmed; it may have expired. Start again from your organization's sign-in link.");
    });
})();
`;

const page = (nonce: string) =>
  htmlDocument(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>Signing in</title>
        <style nonce={nonce} dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <main id="card">
          <h1 id="title">Signing in…</h1>
          <p id="message">Finishing single sign-on.</p>
          <noscript>
            <p>
              This page needs JavaScript to store your session. Start again from your organization's sign-in link with
              JavaScript enabled.
            </p>
          </noscript>
          <section id="next" hidden>
            <p>
              Your session is stored in this browser tab only (<code>sessionStorage</code>, key{" "}
              <code>{SESSION_STORAGE_KEY}</code>) and lasts 8 hours. It is gone when the tab is closed.
            </p>
            <p>
              Next: explore and call the API from the <a href="/docs">API documentation</a> with the stored token as{" "}
              <code>Authorization: Bearer</code>, or return to the application that sent you here.
            </p>
          </section>
        </main>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: SCRIPT }} />
      </body>
    </html>,
  );

/** GET /sso/complete: stores ?token= in sessionStorage, removes it from the URL, says what next. */
export function ssoCompletePage(c: Context<AppEnv>) {
  const nonce = randomToken(16);
  return c.html(page(nonce), 200, {
    "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
}

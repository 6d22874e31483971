/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { htmlDocument } from "../../lib/html";
import { BrandFooter, BrandHeader, brandCss, safeLogoUrl } from "../white-label/render";
import type { EffectiveBrand } from "../white-label/resolve";
import type { OAuthGrant } from "./grants";
import { isScope, SCOPES } from "./scopes";

export const CONNECTED_APPS_PATH = "/account/connected-apps";

/**
 * The page's look: the consent page's (consent-page.ts), widened to a list that reflows to one
 * column at phone width (375 px) with no horizontal scroll; long names and ids wrap anywhere.
 */
const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f5f7;color:#1d2433;margin:0}
main{max-width:46rem;margin:2rem auto;background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:1.5rem;box-sizing:border-box}
@media (max-width:600px){main{margin:0;border-radius:0;padding:1rem}}
h1{font-size:1.4rem;margin:0 0 .5rem}
h1:focus{outline:none}
h2{font-size:1.1rem;margin:0;overflow-wrap:anywhere}
.who{color:#4a5568;font-size:.95rem;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;justify-content:space-between}
.who form{margin:0}
.error{background:#fdecec;border:1px solid #e99;border-radius:8px;padding:.6rem .8rem}
.status:empty{display:none}
.status{background:#e8f6ec;border:1px solid #8fd19e;border-radius:8px;padding:.6rem .8rem}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem .6rem;border:1px solid #c7ccd6;border-radius:8px;font:inherit}
ul.apps{list-style:none;margin:1rem 0 0;padding:0;display:grid;gap:1rem}
li.app{border:1px solid #e2e5ea;border-radius:10px;padding:1rem;display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;align-items:start}
.logo{width:40px;height:40px;border-radius:8px;background:#eef1f5;display:flex;align-items:center;justify-content:center;font-weight:700;color:#4a5568;overflow:hidden}
.logo img{width:40px;height:40px;object-fit:contain}
dl{margin:.4rem 0 0;display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;font-size:.92rem}
dt{color:#5a6475}
dd{margin:0;overflow-wrap:anywhere;min-width:0}
code{font-size:.85rem;background:#eef1f5;border-radius:4px;padding:0 .3rem;display:inline-block;margin:0 .2rem .2rem 0}
.app form{grid-column:1/-1;margin:.5rem 0 0}
.client-id{color:#5a6475;font-size:.85rem;overflow-wrap:anywhere;margin:0}
button{font:inherit;min-height:44px;padding:.55rem 1.1rem;border-radius:8px;border:1px solid #c7ccd6;background:#fff;cursor:pointer}
button.primary{background:#2453d6;border-color:#2453d6;color:#fff}
button.danger{background:#fff;border-color:#b42318;color:#b42318}
button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid #2453d6;outline-offset:2px}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.wl-head{display:flex;align-items:center;gap:.6rem;margin-bottom:1rem;font-weight:600}
.wl-head img{max-height:2.5rem;max-width:8rem;object-fit:contain}
`;

/**
 * Revoke without a page load when script runs: the same form posted with fetch (Accept: JSON, its
 * CSRF field included), the card removed, the result announced in the status region and focus
 * moved to the heading. Any failure falls back to the plain form post.
 */
const SCRIPT = `
document.addEventListener("submit", function (e) {
  var form = e.target;
  if (!form.classList || !form.classList.contains("revoke")) return;
  e.preventDefault();
  var button = form.querySelector("button");
  button.disabled = true;
  fetch(form.action, {
    method: "POST",
    body: new URLSearchParams(new FormData(form)),
    headers: { accept: "application/json" },
    credentials: "same-origin"
  }).then(function (res) {
    if (!res.ok) throw new Error(String(res.status));
    return res.json();
  }).then(function (body) {
    var item = form.closest("li");
    var list = item.parentNode;
    item.remove();
    document.getElementById("status").textContent = body.clientName + " is disconnected.";
    if (!list.children.length) {
      list.remove();
      document.getElementById("empty").hidden = false;
    }
    document.getElementById("title").focus();
  }).catch(function () {
    form.submit();
  });
});
`;

function frame(title: string, body: Child, brand: EffectiveBrand, nonce: string, script = false): string {
  return htmlDocument(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>
          {title} · {brand.name}
        </title>
        <style nonce={nonce} dangerouslySetInnerHTML={{ __html: STYLE + brandCss(brand) }} />
      </head>
      <body>
        <main>
          <BrandHeader brand={brand} />
          {body}
        </main>
        <BrandFooter brand={brand} />
        {script && <script nonce={nonce} dangerouslySetInnerHTML={{ __html: SCRIPT }} />}
      </body>
    </html>,
  );
}

const ErrorLine = ({ error }: { error?: string }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

export function signInPage(brand: EffectiveBrand, nonce: string, error?: string): string {
  return frame(
    "Connected apps: sign in",
    <>
      <h1>Sign in to see your connected apps</h1>
      <p>
        Apps such as Claude or ChatGPT that you connected to {brand.name} through OAuth are listed after you sign in,
        and you can disconnect them.
      </p>
      <ErrorLine error={error} />
      <form method="post" action={`${CONNECTED_APPS_PATH}/sign-in`} autocomplete="on">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" required autocomplete="username" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required minlength={8} autocomplete="current-password" />
        <p>
          <button class="primary" type="submit">
            Sign in
          </button>
        </p>
      </form>
    </>,
    brand,
    nonce,
  );
}

const When = ({ iso, never = "Never" }: { iso: string | null; never?: string }) =>
  iso ? <time datetime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time> : never;

const ScopeList = ({ scopes }: { scopes: string[] }) => (
  <>
    {scopes.map((s, i) => (
      <>
        {i > 0 && " "}
        <code title={isScope(s) ? SCOPES[s] : s}>{s}</code>
      </>
    ))}
  </>
);

function AppCard({ g, csrf }: { g: OAuthGrant; csrf: string }) {
  const logo = safeLogoUrl(g.logoUri);
  const initial = (g.clientName.trim()[0] ?? "?").toUpperCase();
  const tenant = g.agencySession
    ? `${g.tenantName ?? g.tenantId ?? ""} (agency session: every tenant of your agencies)`
    : (g.tenantName ?? g.tenantId ?? "");
  const headingId = `app-${g.id}`;
  return (
    <li class="app" aria-labelledby={headingId}>
      <div class="logo">
        {logo ? (
          <img src={logo} alt="" width="40" height="40" referrerpolicy="no-referrer" />
        ) : (
          <span aria-hidden="true">{initial}</span>
        )}
      </div>
      <div>
        <h2 id={headingId}>{g.clientName}</h2>
        <p class="client-id">Client {g.clientId}</p>
        <dl>
          <dt>Acts for</dt>
          <dd>{tenant}</dd>
          <dt>Allowed</dt>
          <dd>
            <ScopeList scopes={g.scopes} />
          </dd>
          <dt>Connected</dt>
          <dd>
            <When iso={g.createdAt} />
          </dd>
          <dt>Last used</dt>
          <dd>
            <When iso={g.lastUsedAt} />
          </dd>
        </dl>
      </div>
      <form class="revoke" method="post" action={`${CONNECTED_APPS_PATH}/${encodeURIComponent(g.id)}/revoke`}>
        <input type="hidden" name="csrf" value={csrf} />
        <button class="danger" type="submit">
          Disconnect<span class="vh"> {g.clientName}</span>
        </button>
      </form>
    </li>
  );
}

export function listPage(
  o: { email: string; grants: OAuthGrant[]; csrf: string; revoked?: boolean; error?: string },
  brand: EffectiveBrand,
  nonce: string,
): string {
  return frame(
    "Connected apps",
    <>
      <div class="who">
        <span>
          Signed in as <strong>{o.email}</strong>
        </span>
        <form method="post" action={`${CONNECTED_APPS_PATH}/sign-out`}>
          <input type="hidden" name="csrf" value={o.csrf} />
          <button type="submit" class="secondary">
            Sign out
          </button>
        </form>
      </div>
      <h1 id="title" tabindex={-1}>
        Connected apps
      </h1>
      <p>
        Apps you allowed to act for you through OAuth. Disconnecting one ends its access at once; it has to ask you
        again to come back.
      </p>
      <ErrorLine error={o.error} />
      <p id="status" class="status" role="status">
        {o.revoked ? "App disconnected." : ""}
      </p>
      <p id="empty" hidden={o.grants.length > 0}>
        No apps are connected.
      </p>
      {o.grants.length > 0 && (
        <ul class="apps" aria-label="Connected apps">
          {o.grants.map((g) => (
            <AppCard g={g} csrf={o.csrf} />
          ))}
        </ul>
      )}
    </>,
    brand,
    nonce,
    true,
  );
}

export function messagePage(title: string, message: string, brand: EffectiveBrand, nonce: string): string {
  return frame(
    title,
    <>
      <h1>{title}</h1>
      <ErrorLine error={message} />
      <p>
        <a href={CONNECTED_APPS_PATH}>Back to connected apps</a>
      </p>
    </>,
    brand,
    nonce,
  );
}

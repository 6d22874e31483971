/** @jsxImportSource hono/jsx */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { Child } from "hono/jsx";
import { htmlDocument } from "../../lib/html";
import { BrandFooter, BrandHeader, brandCss } from "../white-label/render";
import { DEFAULT_BRAND, type EffectiveBrand } from "../white-label/resolve";
import { isScope, SCOPES } from "./scopes";

export interface TenantChoice {
  id: string;
  name: string;
  agencyId: string;
  /** the user administers this tenant's agency (an agency session may start from it) */
  inAdministeredAgency: boolean;
}

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f5f7;color:#1d2433;margin:0}
main{max-width:34rem;margin:3rem auto;background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:2rem}
h1{font-size:1.35rem;margin:0 0 .75rem}
.who{color:#4a5568;font-size:.95rem}
.warn{background:#fff7e6;border:1px solid #f5c26b;border-radius:8px;padding:.6rem .8rem;font-size:.92rem}
.error{background:#fdecec;border:1px solid #e99;border-radius:8px;padding:.6rem .8rem}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}
input[type=email],input[type=password],select{width:100%;box-sizing:border-box;padding:.55rem .6rem;border:1px solid #c7ccd6;border-radius:8px;font:inherit}
fieldset{border:1px solid #e2e5ea;border-radius:8px;margin:1rem 0;padding:.5rem .9rem}
legend{font-weight:600;padding:0 .3rem}
.scope{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.35rem 0}
.scope code{font-size:.85rem;background:#eef1f5;border-radius:4px;padding:0 .3rem}
.scope small{display:block;color:#5a6475}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #c7ccd6;background:#fff;cursor:pointer}
button.primary{background:#2453d6;border-color:#2453d6;color:#fff}
.wl-head{display:flex;align-items:center;gap:.6rem;margin-bottom:1rem;font-weight:600}
.wl-head img{max-height:2.5rem;max-width:8rem;object-fit:contain}
`;

/** The page frame in the white label of the host it is served on (a custom hostname's owner, else the platform's). */
function page(title: string, body: Child, brand: EffectiveBrand): string {
  return htmlDocument(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{title}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE + brandCss(brand) }} />
      </head>
      <body>
        <main>
          <BrandHeader brand={brand} />
          {body}
        </main>
        <BrandFooter brand={brand} />
      </body>
    </html>,
  );
}

function ClientFacts({ d, brand }: { d: ConsentDescription; brand: EffectiveBrand }) {
  return (
    <>
      <h1>
        Connect {d.clientName} to {brand.name}
      </h1>
      <p class="who">
        {d.clientDomain ? (
          <>
            Published by <strong>{d.clientDomain}</strong>.
          </>
        ) : (
          "This app registered itself; its name is not verified."
        )}{" "}
        Access will be sent to <strong>{d.redirectHost}</strong>.
      </p>
      {d.redirectIsLoopback && (
        <p class="warn">
          <strong>This sends access to an app on your computer.</strong> Continue only if you just started connecting
          from it.
        </p>
      )}
    </>
  );
}

const ErrorLine = ({ error }: { error?: string }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

const requestedScopes = (d: ConsentDescription) => d.scope.filter(isScope);

/** Step 1: sign in with an existing account's email and password. */
export function signInPage(
  d: ConsentDescription,
  handle: string,
  error?: string,
  brand: EffectiveBrand = DEFAULT_BRAND,
): string {
  const scopes = requestedScopes(d);
  return page(
    `Sign in to connect ${d.clientName}`,
    <>
      <ClientFacts d={d} brand={brand} />
      <p>It asks for:</p>
      {scopes.length ? (
        <ul>
          {scopes.map((s) => (
            <li>
              <code>{s}</code> {SCOPES[s]}
            </li>
          ))}
        </ul>
      ) : (
        <p>Read access to your reviews, locations, campaigns and more (you choose on the next step).</p>
      )}
      <ErrorLine error={error} />
      <form method="post" autocomplete="on">
        <input type="hidden" name="handle" value={handle} />
        <input type="hidden" name="step" value="signin" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" required autocomplete="username" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required minlength={8} autocomplete="current-password" />
        <div class="actions">
          <button class="primary" type="submit">
            Sign in
          </button>
        </div>
      </form>
    </>,
    brand,
  );
}

/** Step 2: choose the tenant (or an agency session) and the scopes, then allow or deny. */
export function consentPage(
  d: ConsentDescription,
  o: {
    handle: string;
    ticket: string;
    email: string;
    tenants: TenantChoice[];
    offered: string[];
    granted?: string[];
    tenantId?: string;
    error?: string;
  },
  brand: EffectiveBrand = DEFAULT_BRAND,
): string {
  const requested = new Set<string>(requestedScopes(d));
  const checkedByDefault = (s: string) => (requested.size === 0 ? s.startsWith("read:") : requested.has(s));
  return page(
    `Allow ${d.clientName}?`,
    <>
      <ClientFacts d={d} brand={brand} />
      <p class="who">
        Signed in as <strong>{o.email}</strong>.
      </p>
      <ErrorLine error={o.error} />
      <form method="post">
        <input type="hidden" name="handle" value={o.handle} />
        <input type="hidden" name="ticket" value={o.ticket} />
        <input type="hidden" name="step" value="consent" />
        <label for="tenant">Act for</label>
        <select id="tenant" name="tenant" required>
          {o.tenants.map((t) => (
            <option value={t.id} selected={t.id === o.tenantId}>
              {t.name}
            </option>
          ))}
        </select>
        {o.tenants.some((t) => t.inAdministeredAgency) && (
          <label class="scope">
            <input type="checkbox" name="agency" value="on" />
            <span>
              Agency session
              <small>
                Act for every tenant of the agencies you administer (tools take a tenantId). The tenant above is the
                default.
              </small>
            </span>
          </label>
        )}
        {/* incremental consent: what this app already has is shown, not asked again */}
        {o.granted?.length ? (
          <p class="who" id="granted">
            It already has:{" "}
            {o.granted.map((s, i) => (
              <>
                {i > 0 && " "}
                <code>{s}</code>
              </>
            ))}
            . It now also asks for:
          </p>
        ) : null}
        <fieldset>
          <legend>{o.granted?.length ? "Also allow it to" : "Allow it to"}</legend>
          {o.offered.map((s) => (
            <label class="scope">
              <input type="checkbox" name="scope" value={s} checked={checkedByDefault(s)} />
              <span>
                <code>{s}</code>
                <small>{isScope(s) ? SCOPES[s] : s}</small>
              </span>
            </label>
          ))}
        </fieldset>
        <div class="actions">
          <button class="primary" type="submit" name="decision" value="approve">
            Allow
          </button>
          <button type="submit" class="secondary" name="decision" value="deny">
            Deny
          </button>
        </div>
      </form>
    </>,
    brand,
  );
}

export function errorPage(message: string, brand: EffectiveBrand = DEFAULT_BRAND): string {
  return page(
    "Cannot connect",
    <>
      <h1>This connection cannot continue</h1>
      <ErrorLine error={message} />
      <p>Start again from the app you were connecting.</p>
    </>,
    brand,
  );
}

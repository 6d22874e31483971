/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { TenantRole } from "../../db/schema";
import { roleAtLeast } from "../identity/access";
import { ownLogoUrl } from "../white-label/logo-url";
import { safeHexColor, textOn } from "../white-label/render";
import type { EffectiveBrand } from "../white-label/resolve";
import { consoleAssets } from "./assets";
import { type Section, TENANT_SECTIONS } from "./sections";

/*
 * The console's one layout (docs/console.md): a header with the brand (the host's white label), the tenant
 * and the person, the navigation, and the page. The stylesheet and the script come from our own origin;
 * the only inline element is the brand's colours, under the page's CSP nonce. No style attributes, no
 * inline handlers: the CSP allows neither.
 */

export type { Section } from "./sections";

export interface Flash {
  kind: "notice" | "error";
  text: string;
}

export interface TenantInFrame {
  id: string;
  name: string;
  role: TenantRole;
  via: "platform" | "tenant" | "agency" | "api_key";
}

export interface Frame {
  title: string;
  nonce: string;
  brand: EffectiveBrand;
  /** the signed-in person, and the pages outside a tenant they open (REST's /agency and /admin checks) */
  person?: { name: string; email: string; agency?: boolean; platform?: boolean } | null;
  csrf?: string | null;
  tenant?: TenantInFrame | null;
  section?: Section;
  flash?: Flash | null;
}

export const ROLE_LABEL: Record<TenantRole, string> = {
  tenant_admin: "Admin",
  manager: "Manager",
  tenant_user: "Team member",
  viewer: "Viewer",
};

/** How the person holds the role: their own, through the agency, or as the platform's admin. */
export const roleText = (t: Pick<TenantInFrame, "role" | "via">) =>
  t.via === "agency"
    ? `${ROLE_LABEL[t.role]} (agency)`
    : t.via === "platform"
      ? `${ROLE_LABEL[t.role]} (platform)`
      : ROLE_LABEL[t.role];

function brandStyle(brand: EffectiveBrand): string {
  const p = safeHexColor(brand.primaryColor);
  const a = safeHexColor(brand.accentColor);
  const vars = [p && `--primary:${p};--on-primary:${textOn(p)}`, a && `--accent:${a}`].filter(Boolean);
  return vars.length ? `:root{${vars.join(";")}}` : "";
}

const tenantPath = (id: string, rest = "") => `/app/t/${encodeURIComponent(id)}${rest}`;

/** The main sections of a tenant (sections.ts), each linked for the roles its REST twin answers. */
function Nav({ tenant, section }: { tenant: TenantInFrame; section?: Section }) {
  const links = TENANT_SECTIONS.filter((s) => s.group === "main" && roleAtLeast(tenant.role, s.minRole)).map(
    (s): [Section, string, string] => [s.key, s.label, tenantPath(tenant.id, s.path)],
  );
  // a page listed on the Settings page keeps "Settings" current in the bar
  const inSettings = TENANT_SECTIONS.some((s) => s.group === "settings" && s.key === section);
  return (
    <nav class="main" aria-label="Console">
      <ul>
        {links.map(([key, label, href]) => (
          <li>
            <a href={href} aria-current={section === key || (key === "settings" && inSettings) ? "page" : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function Layout(props: Frame & { children: Child }) {
  const { brand, person, tenant } = props;
  const assets = consoleAssets();
  const logo = ownLogoUrl(brand.logoUrl);
  const style = brandStyle(brand);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex" />
        <title>
          {props.title}
          {tenant ? ` · ${tenant.name}` : ""} · {brand.name}
        </title>
        {/* no icon file to fetch (a 404 in every browser's console otherwise) */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assets.style.path} nonce={props.nonce} />
        {/* the brand's colours, each through the strict #rrggbb check */}
        {style && <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: style }} />}
        <script src={assets.script.path} nonce={props.nonce} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="top-row">
            <a class="brand" href={person ? "/app" : "/"}>
              {logo && <img src={logo} alt="" />}
              <span>{brand.name}</span>
            </a>
            {tenant && (
              <p class="tenant">
                <span>
                  <strong>{tenant.name}</strong> · {roleText(tenant)}
                </span>
                <a href="/app/tenants">Switch</a>
              </p>
            )}
            {person && (
              <div class="who">
                {person.agency && (
                  <a href="/app/agency" aria-current={props.section === "agency" ? "page" : undefined}>
                    Agency
                  </a>
                )}
                {person.platform && (
                  <a href="/app/platform" aria-current={props.section === "platform" ? "page" : undefined}>
                    Platform
                  </a>
                )}
                <a href="/app/me" aria-current={props.section === "me" ? "page" : undefined}>
                  {person.name || person.email}
                </a>
                <form method="post" action="/app/sign-out">
                  <input type="hidden" name="csrf" value={props.csrf ?? ""} />
                  <button type="submit" class="link">
                    Sign out
                  </button>
                </form>
              </div>
            )}
          </div>
          {tenant && <Nav tenant={tenant} section={props.section} />}
        </header>
        <main id="main">
          {props.flash && (
            <p class={props.flash.kind} role={props.flash.kind === "error" ? "alert" : "status"}>
              {props.flash.text}
            </p>
          )}
          {props.children}
          <p id="live-status" class="vh" role="status" aria-live="polite"></p>
        </main>
      </body>
    </html>
  );
}

/** A hidden field every state-changing form of a signed-in page carries. */
export const Csrf = ({ token }: { token: string }) => <input type="hidden" name="csrf" value={token} />;

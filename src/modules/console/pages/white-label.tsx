/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { callOperation } from "../../../lib/operation-route";
import { canAdminister } from "../../../middleware/tenant";
import {
  createHostnameOperation,
  deleteHostnameOperation,
  listHostnamesOperation,
  refreshHostnameOperation,
} from "../../white-label/hostname.operations";
import { ownLogoUrl } from "../../white-label/logo-url";
import { LOGO_MAX_BYTES } from "../../white-label/logos";
import {
  createBrandingLogoOperation,
  deleteBrandingOperation,
  getBrandingOperation,
  updateBrandingOperation,
} from "../../white-label/operations";
import type { CustomHostnameListSchema, CustomHostnameSchema, TenantBrandingSchema } from "../../white-label/schemas";
import { tenantHref, tenantOf, When } from "../atoms";
import { blankToNull, withLabels } from "../form-values";
import { act, asRest, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { ButtonForm, FormCard, StateTag } from "../places";

/*
 * White label (docs/console.md "White label", issue #46 item 8; docs/white-label.md): what the business's public
 * pages and emails show and the host its links use, through the catalogue's operations as REST has them. Every
 * role reads it (GET /v1/branding, GET /v1/hostnames); a tenant admin changes it: the brand override
 * (PUT /v1/branding), the logo (POST /v1/branding/logo, multipart), "Reset to the default brand"
 * (DELETE /v1/branding), and custom hostnames (POST /v1/hostnames, POST …/{id}/refresh, DELETE …/{id}) with the
 * DNS records to create and their verification state. Only an uploaded logo is shown (ownLogoUrl): a page loads
 * nothing from another origin.
 */

type Branding = z.infer<typeof TenantBrandingSchema>;
type Hostname = z.infer<typeof CustomHostnameSchema>;

const PATH = "/white-label";
const LABELS = {
  name: "Brand name",
  primaryColor: "Button colour",
  accentColor: "Top band colour",
  supportEmail: "Support email",
  file: "Logo",
  hostname: "Hostname",
};
const SOURCE_TEXT: Record<string, string> = {
  tenant: "your own settings below",
  agency: "your agency's brand",
  default: "the platform's default brand",
};
const tooLarge = "The logo is larger than 256 KB, so nothing was changed. Upload a smaller PNG, JPEG or WebP image.";

/**
 * REST's cap on a logo upload (256 KB and the multipart's overhead), checked before the body is read: the
 * console's pipeline reads a form before its handler (the CSRF token), so this runs ahead of it.
 */
export const logoBodyLimit = bodyLimit({
  maxSize: LOGO_MAX_BYTES + 16 * 1024,
  // before the tenant fence: the page's address from the path (…/white-label/logo -> …/white-label)
  onError: (c) => redirectTo(c as CC, c.req.path.replace(/\/logo$/, ""), { kind: "error", text: tooLarge }),
});

/** What pages show now, and where it comes from. */
function Effective({ b }: { b: Branding }) {
  const logo = ownLogoUrl(b.effective.logoUrl);
  const e = b.effective;
  return (
    <section class="card" aria-labelledby="shown">
      <h2 id="shown">What your pages and emails show</h2>
      <dl class="facts">
        <dt>Brand</dt>
        <dd>
          {e.name} <span class="muted small">(from {SOURCE_TEXT[e.source] ?? e.source})</span>
        </dd>
        <dt>Logo</dt>
        <dd>
          {logo ? (
            <img class="brand-logo" src={logo} alt={`The logo of ${e.name}`} />
          ) : (
            <span class="muted">none uploaded</span>
          )}
        </dd>
        <dt>Button colour</dt>
        <dd>{e.primaryColor ? <code>{e.primaryColor}</code> : <span class="muted">the default</span>}</dd>
        <dt>Top band colour</dt>
        <dd>{e.accentColor ? <code>{e.accentColor}</code> : <span class="muted">the default</span>}</dd>
        <dt>Support email</dt>
        <dd>{e.supportEmail ?? <span class="muted">none</span>}</dd>
        <dt>Links use</dt>
        <dd>
          <code>{b.publicBaseUrl}</code>
        </dd>
      </dl>
    </section>
  );
}

/** The tenant's own values; a blank field inherits the agency's (shown as the placeholder). */
function BrandForm({ b, action, csrf }: { b: Branding; action: string; csrf: string }) {
  const own = b.override;
  const inherited = (v: string | null | undefined) => (v ? `Inherited: ${v}` : "Inherited");
  return (
    <FormCard id="brand" title="Your brand" action={action} csrf={csrf} button="Save the brand">
      <p class="muted small">Leave a field blank to use your agency's value (or the platform's).</p>
      <label for="wl-name">Brand name</label>
      <input
        id="wl-name"
        name="name"
        type="text"
        maxlength={100}
        value={own?.name ?? ""}
        placeholder={inherited(b.agency?.name)}
      />
      <label for="wl-primary">Button colour (#rrggbb)</label>
      <input
        id="wl-primary"
        name="primaryColor"
        type="text"
        pattern="#[0-9a-fA-F]{6}"
        maxlength={7}
        value={own?.primaryColor ?? ""}
        placeholder={inherited(b.agency?.primaryColor)}
      />
      <label for="wl-accent">Top band colour (#rrggbb)</label>
      <input
        id="wl-accent"
        name="accentColor"
        type="text"
        pattern="#[0-9a-fA-F]{6}"
        maxlength={7}
        value={own?.accentColor ?? ""}
        placeholder={inherited(b.agency?.accentColor)}
      />
      <label for="wl-support">Support email (page and email footers)</label>
      <input
        id="wl-support"
        name="supportEmail"
        type="email"
        maxlength={254}
        value={own?.supportEmail ?? ""}
        placeholder={inherited(b.agency?.supportEmail)}
      />
    </FormCard>
  );
}

function LogoForm({ action, csrf }: { action: string; csrf: string }) {
  return (
    <section class="card" aria-labelledby="logo">
      <h2 id="logo">Logo</h2>
      <p class="muted small">
        A PNG, JPEG or WebP image of at most 256 KB (SVG is not accepted). It replaces the logo.
      </p>
      <form method="post" action={action} enctype="multipart/form-data">
        <Csrf token={csrf} />
        <label for="wl-logo">Image file</label>
        <input id="wl-logo" name="file" type="file" accept="image/png,image/jpeg,image/webp" required />
        <div class="actions">
          <button type="submit">Upload the logo</button>
        </div>
      </form>
    </section>
  );
}

/** A DNS record's part, to select or copy. */
function Copyable({ id, text, what }: { id: string; text: string; what: string }) {
  return (
    <>
      <code id={id}>{text}</code>{" "}
      <button
        type="button"
        class="secondary"
        data-copy={id}
        data-copied={`${what} copied to the clipboard.`}
        aria-label={`Copy ${what}`}
        hidden
      >
        Copy
      </button>
    </>
  );
}

/** The records the customer creates at their DNS host, as the API gives them. */
function recordsOf(h: Hostname): { type: string; name: string; value: string | null; why: string }[] {
  return [
    { type: "CNAME", name: h.dns.cname.name, value: h.dns.cname.target, why: "points the name at this service" },
    {
      type: h.dns.verification.type,
      name: h.dns.verification.name,
      value: h.dns.verification.value,
      why: "proves the name is yours",
    },
    ...(h.dns.ownership ? [{ ...h.dns.ownership, why: "Cloudflare's own ownership check" }] : []),
    ...h.dns.ssl
      .filter((s) => s.txtName && s.txtValue)
      .map((s) => ({ type: "TXT", name: s.txtName!, value: s.txtValue, why: "lets the certificate be issued" })),
  ];
}

function HostnameCard(props: { h: Hostname; n: number; base: string; csrf: string; admin: boolean }) {
  const { h, n } = props;
  const at = `${props.base}/hostnames/${encodeURIComponent(h.id)}`;
  return (
    <section class="card" aria-labelledby={`host-${n}`}>
      <h3 id={`host-${n}`}>{h.hostname}</h3>
      <p>
        <StateTag on={h.active} yes="Active: your links use it" no="Not active yet" off="warn" />{" "}
        <StateTag on={h.verified} yes="Ownership verified" no="Ownership not yet proven" off="warn" />
      </p>
      <p class="muted small">
        Cloudflare status: {h.status}, certificate: {h.sslStatus ?? "not started"}. Last checked{" "}
        <When iso={h.lastCheckedAt} />.
        {h.claimExpiresAt && (
          <>
            {" "}
            Unless ownership is proven, the claim is removed on <When iso={h.claimExpiresAt} />.
          </>
        )}
      </p>
      {h.errors.length > 0 && (
        <ul class="error">
          {h.errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      )}
      <table class="rows">
        <caption>DNS records to create for {h.hostname}</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {recordsOf(h).map((r, i) => (
            <tr>
              <th scope="row" data-label="Type">
                {r.type}
                <span class="muted small"> ({r.why})</span>
              </th>
              <td data-label="Name">
                <Copyable id={`dns-${n}-${i}-name`} text={r.name} what={`the ${r.type} record's name`} />
              </td>
              <td data-label="Value">
                {r.value ? (
                  <Copyable id={`dns-${n}-${i}-value`} text={r.value} what={`the ${r.type} record's value`} />
                ) : (
                  <span class="muted">not configured on this platform: ask support for the target</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.admin && (
        <div class="actions">
          <ButtonForm action={`${at}/refresh`} csrf={props.csrf} label="Check again" name={h.hostname} />
          <ButtonForm action={`${at}/delete`} csrf={props.csrf} label="Remove the hostname" name={h.hostname} danger />
        </div>
      )}
    </section>
  );
}

export async function whiteLabelPage(c: CC): Promise<Response> {
  const [tenant, branding, hostnames, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Branding>(c, getBrandingOperation),
    callOperation<z.infer<typeof CustomHostnameListSchema>>(c, listHostnamesOperation),
    csrfOf(c),
  ]);
  const base = tenantHref(c, PATH);
  const admin = can(c, "tenant_admin");
  return page(
    c,
    { title: "White label", section: "white-label", tenant },
    <>
      <h1>White label</h1>
      <p class="muted">
        The brand your review pages, feedback pages, widgets and emails show, and your own hostname for their links.
      </p>
      {!admin && <p class="notice">Only a business admin can change these.</p>}
      <Effective b={branding} />
      {admin && (
        <>
          <BrandForm b={branding} action={base} csrf={csrf} />
          <LogoForm action={`${base}/logo`} csrf={csrf} />
          {branding.override && (
            <section class="card" aria-labelledby="reset">
              <h2 id="reset">Reset</h2>
              <p class="muted small">
                Removes your own name, colours, email and logo: pages show your agency's brand (or the platform's).
              </p>
              <ButtonForm action={`${base}/reset`} csrf={csrf} label="Reset to the default brand" danger />
            </section>
          )}
        </>
      )}
      <h2 id="hostnames">Your hostname</h2>
      <p class="muted">
        Links use your own hostname (such as reviews.yourbusiness.com) once its DNS records are in place and checked;
        until then they use <code>{branding.publicBaseUrl}</code>.
      </p>
      {hostnames.data.length === 0 ? (
        <p class="card">
          No hostname of your own yet. {admin ? "Add one below" : "A business admin can add one"}, then create the DNS
          records this page shows at your DNS host.
        </p>
      ) : (
        hostnames.data.map((h, n) => <HostnameCard h={h} n={n} base={base} csrf={csrf} admin={admin} />)
      )}
      {admin && (
        <FormCard
          id="add-host"
          title="Add a hostname"
          action={`${base}/hostnames`}
          csrf={csrf}
          button="Add the hostname"
        >
          <label for="wl-host">Hostname (no https://, no path)</label>
          <input
            id="wl-host"
            name="hostname"
            type="text"
            required
            maxlength={253}
            placeholder="reviews.yourbusiness.com"
            autocomplete="off"
          />
        </FormCard>
      )}
    </>,
  );
}

const back = (c: CC) => tenantHref(c, PATH);

/** PUT /v1/branding: the form's fields replace the override; the uploaded logo is kept (GET-modify-PUT). */
export async function brandSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const form = await formOf(c);
    const now = await callOperation<Branding>(c, getBrandingOperation);
    await withLabels(LABELS, () =>
      callOperation(c, updateBrandingOperation, {
        body: {
          name: blankToNull(form.one("name")),
          primaryColor: blankToNull(form.one("primaryColor")),
          accentColor: blankToNull(form.one("accentColor")),
          supportEmail: blankToNull(form.one("supportEmail")),
          logoUrl: now.override?.logoUrl ?? null,
        },
      }),
    );
    return redirectTo(c, back(c), { kind: "notice", text: "The brand is saved: your pages show it now." });
  });
}

/** POST /v1/branding/logo (multipart): the image replaces the logo. */
export async function logoSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    // REST's role check first, so a lower role hears that rather than what the form lacks
    await asRest(c, canAdminister);
    const file = (await formOf(c)).file("file");
    if (!file) return redirectTo(c, back(c), { kind: "error", text: "Choose an image file to upload." });
    await withLabels(LABELS, () => callOperation(c, createBrandingLogoOperation, { form: { file } }));
    return redirectTo(c, back(c), { kind: "notice", text: "The logo is uploaded: your pages show it now." });
  });
}

/** DELETE /v1/branding; with no override there is nothing to reset, which the page says rather than a 404. */
export async function resetSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    await asRest(c, canAdminister);
    const now = await callOperation<Branding>(c, getBrandingOperation);
    if (now.override) await callOperation(c, deleteBrandingOperation);
    return redirectTo(c, back(c), {
      kind: "notice",
      text: "Your own brand is removed: pages show your agency's brand (or the platform's).",
    });
  });
}

/** POST /v1/hostnames. */
export async function addHostnameSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const form = await formOf(c);
    const h = await withLabels(LABELS, () =>
      callOperation<Hostname>(c, createHostnameOperation, { body: { hostname: form.one("hostname") } }),
    );
    return redirectTo(c, back(c), {
      kind: "notice",
      text: `${h.hostname} is added. Create the DNS records shown for it, then choose "Check again".`,
    });
  });
}

/** POST /v1/hostnames/{id}/refresh. */
export async function refreshHostnameSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const h = await callOperation<Hostname>(c, refreshHostnameOperation, {
      params: { id: c.req.param("hostnameId") ?? "" },
    });
    return redirectTo(c, back(c), {
      kind: "notice",
      text: h.active
        ? `${h.hostname} is active: your links use it.`
        : `${h.hostname} is not active yet (${h.verified ? "ownership verified" : "ownership not yet proven"}; status ${h.status}).`,
    });
  });
}

/** DELETE /v1/hostnames/{id}. */
export async function deleteHostnameSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    await callOperation(c, deleteHostnameOperation, { params: { id: c.req.param("hostnameId") ?? "" } });
    return redirectTo(c, back(c), { kind: "notice", text: "The hostname is removed, from Cloudflare too." });
  });
}

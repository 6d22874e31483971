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
import { tenantHref, tenantOf } from "../atoms";
import { withLabels } from "../form-values";
import { act, asRest, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { ButtonForm } from "../places";
import { AddHostnameForm, BrandForm, brandBodyOf, HostnameCard, LogoForm } from "./white-label-parts";

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
          <BrandForm
            own={branding.override}
            inherited={branding.agency ?? null}
            title="Your brand"
            hint="Leave a field blank to use your agency's value (or the platform's)."
            action={base}
            csrf={csrf}
          />
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
      {admin && <AddHostnameForm base={base} csrf={csrf} example="reviews.yourbusiness.com" />}
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
        body: brandBodyOf(form, now.override?.logoUrl ?? null),
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

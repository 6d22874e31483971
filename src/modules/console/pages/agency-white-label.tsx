/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import {
  createAgencyHostnameOperation,
  deleteAgencyHostnameOperation,
  listAgencyHostnamesOperation,
  refreshAgencyHostnameOperation,
} from "../../white-label/hostname.operations";
import {
  createAgencyBrandingLogoOperation,
  deleteAgencyBrandingOperation,
  getAgencyBrandingOperation,
  updateAgencyBrandingOperation,
} from "../../white-label/operations";
import type { CustomHostnameListSchema, CustomHostnameSchema, WhiteLabelBrandSchema } from "../../white-label/schemas";
import { withLabels } from "../form-values";
import { act, type CC, csrfOf, formOf, page, redirectTo } from "../kit";
import { ButtonForm } from "../places";
import { AddHostnameForm, BrandForm, brandBodyOf, HostnameCard, LogoForm } from "./white-label-parts";

/*
 * The agency's white label (docs/console.md "White label", issue #46 item 8): the tenant page's twin for the
 * agency's own brand and hostnames, at /app/agency/{agencyId}/white-label behind REST /agency's check, through
 * the agency operations (GET/PUT/DELETE /agency/agencies/{agencyId}/branding, …/branding/logo,
 * …/hostnames[/{id}[/refresh]]), which answer 404 for an agency the person does not administer.
 */

type Brand = z.infer<typeof WhiteLabelBrandSchema>;
type Hostname = z.infer<typeof CustomHostnameSchema>;

const LABELS = {
  name: "Brand name",
  primaryColor: "Button colour",
  accentColor: "Top band colour",
  supportEmail: "Support email",
  file: "Logo",
  hostname: "Hostname",
};

const agencyIdOf = (c: CC) => c.req.param("agencyId") ?? "";
const back = (c: CC) => `/app/agency/${encodeURIComponent(agencyIdOf(c))}/white-label`;

/** GET …/branding; 404 means the agency has no brand of its own (pages show the platform's). */
async function brandOf(c: CC): Promise<Brand | null> {
  try {
    return await callOperation<Brand>(c, getAgencyBrandingOperation, { params: { agencyId: agencyIdOf(c) } });
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

export async function agencyWhiteLabelPage(c: CC): Promise<Response> {
  const agencyId = agencyIdOf(c);
  // the list first: it is the ownership check (404 for another agency) whether or not a brand exists
  const hostnames = await callOperation<z.infer<typeof CustomHostnameListSchema>>(c, listAgencyHostnamesOperation, {
    params: { agencyId },
  });
  const [brand, csrf] = await Promise.all([brandOf(c), csrfOf(c)]);
  const base = back(c);
  return page(
    c,
    { title: "Agency white label", section: "agency" },
    <>
      <h1>Your agency's white label</h1>
      <p class="muted">
        The brand every business of your agency shows on its pages and emails unless it sets its own, and your agency's
        hostnames for their links.
      </p>
      <BrandForm
        own={brand}
        title="Your agency's brand"
        hint="A blank field uses the platform's value."
        action={base}
        csrf={csrf}
      />
      <LogoForm action={`${base}/logo`} csrf={csrf} />
      {brand && (
        <section class="card" aria-labelledby="reset">
          <h2 id="reset">Reset</h2>
          <p class="muted small">Removes your agency's brand: businesses without their own show the platform's.</p>
          <ButtonForm action={`${base}/reset`} csrf={csrf} label="Reset to the platform's brand" danger />
        </section>
      )}
      <h2 id="hostnames">Your agency's hostnames</h2>
      {hostnames.data.length === 0 ? (
        <p class="card">
          No hostname yet. Add one below, then create the DNS records this page shows at your DNS host.
        </p>
      ) : (
        hostnames.data.map((h, n) => <HostnameCard h={h} n={n} base={base} csrf={csrf} admin />)
      )}
      <AddHostnameForm base={base} csrf={csrf} example="reviews.youragency.com" />
    </>,
  );
}

/** PUT …/branding: the form's fields replace the brand; the uploaded logo is kept. */
export async function agencyBrandSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const form = await formOf(c);
    const now = await brandOf(c);
    await withLabels(LABELS, () =>
      callOperation(c, updateAgencyBrandingOperation, {
        params: { agencyId: agencyIdOf(c) },
        body: brandBodyOf(form, now?.logoUrl ?? null),
      }),
    );
    return redirectTo(c, back(c), { kind: "notice", text: "The agency's brand is saved." });
  });
}

/** POST …/branding/logo (multipart). */
export async function agencyLogoSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const file = (await formOf(c)).file("file");
    if (!file) return redirectTo(c, back(c), { kind: "error", text: "Choose an image file to upload." });
    await withLabels(LABELS, () =>
      callOperation(c, createAgencyBrandingLogoOperation, { params: { agencyId: agencyIdOf(c) }, form: { file } }),
    );
    return redirectTo(c, back(c), { kind: "notice", text: "The logo is uploaded." });
  });
}

/** DELETE …/branding; with no brand there is nothing to reset. */
export async function agencyResetSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    if (await brandOf(c))
      await callOperation(c, deleteAgencyBrandingOperation, { params: { agencyId: agencyIdOf(c) } });
    return redirectTo(c, back(c), { kind: "notice", text: "The agency's brand is removed." });
  });
}

export async function agencyAddHostnameSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const form = await formOf(c);
    const h = await withLabels(LABELS, () =>
      callOperation<Hostname>(c, createAgencyHostnameOperation, {
        params: { agencyId: agencyIdOf(c) },
        body: { hostname: form.one("hostname") },
      }),
    );
    return redirectTo(c, back(c), {
      kind: "notice",
      text: `${h.hostname} is added. Create the DNS records shown for it, then choose "Check again".`,
    });
  });
}

export async function agencyRefreshHostnameSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const h = await callOperation<Hostname>(c, refreshAgencyHostnameOperation, {
      params: { agencyId: agencyIdOf(c), id: c.req.param("hostnameId") ?? "" },
    });
    return redirectTo(c, back(c), {
      kind: "notice",
      text: h.active ? `${h.hostname} is active.` : `${h.hostname} is not active yet (status ${h.status}).`,
    });
  });
}

export async function agencyDeleteHostnameSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    await callOperation(c, deleteAgencyHostnameOperation, {
      params: { agencyId: agencyIdOf(c), id: c.req.param("hostnameId") ?? "" },
    });
    return redirectTo(c, back(c), { kind: "notice", text: "The hostname is removed, from Cloudflare too." });
  });
}

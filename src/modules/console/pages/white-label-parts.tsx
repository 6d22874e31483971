/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { CustomHostnameSchema } from "../../white-label/schemas";
import { When } from "../atoms";
import { blankToNull } from "../form-values";
import type { formOf } from "../kit";
import { Csrf } from "../layout";
import { ButtonForm, FormCard, StateTag } from "../places";

/*
 * The white-label pages' shared parts (docs/console.md "White label"): the logo upload and a custom hostname's
 * card with its DNS records, the same for the tenant's page and the agency's; each page passes its own addresses.
 */

type Hostname = z.infer<typeof CustomHostnameSchema>;
type BrandFields = {
  name?: string | null;
  primaryColor?: string | null;
  accentColor?: string | null;
  supportEmail?: string | null;
};

/**
 * The brand's own values (PUT …/branding); with `inherited`, a blank field inherits those values (shown as the
 * placeholder): the tenant's form over its agency's brand. The agency's form has no `inherited`.
 */
export function BrandForm(props: {
  own: BrandFields | null | undefined;
  inherited?: BrandFields | null;
  title: string;
  hint: string;
  action: string;
  csrf: string;
}) {
  const { own } = props;
  const from = props.inherited;
  const inherited = (v: string | null | undefined) =>
    props.inherited === undefined ? undefined : v ? `Inherited: ${v}` : "Inherited";
  return (
    <FormCard id="brand" title={props.title} action={props.action} csrf={props.csrf} button="Save the brand">
      <p class="muted small">{props.hint}</p>
      <label for="wl-name">Brand name</label>
      <input
        id="wl-name"
        name="name"
        type="text"
        maxlength={100}
        value={own?.name ?? ""}
        placeholder={inherited(from?.name)}
      />
      <label for="wl-primary">Button colour (#rrggbb)</label>
      <input
        id="wl-primary"
        name="primaryColor"
        type="text"
        pattern="#[0-9a-fA-F]{6}"
        maxlength={7}
        value={own?.primaryColor ?? ""}
        placeholder={inherited(from?.primaryColor)}
      />
      <label for="wl-accent">Top band colour (#rrggbb)</label>
      <input
        id="wl-accent"
        name="accentColor"
        type="text"
        pattern="#[0-9a-fA-F]{6}"
        maxlength={7}
        value={own?.accentColor ?? ""}
        placeholder={inherited(from?.accentColor)}
      />
      <label for="wl-support">Support email (page and email footers)</label>
      <input
        id="wl-support"
        name="supportEmail"
        type="email"
        maxlength={254}
        value={own?.supportEmail ?? ""}
        placeholder={inherited(from?.supportEmail)}
      />
    </FormCard>
  );
}

/** The brand form's fields as PUT …/branding takes them; the uploaded logo is kept (GET-modify-PUT). */
export const brandBodyOf = (form: Awaited<ReturnType<typeof formOf>>, logoUrl: string | null) => ({
  name: blankToNull(form.one("name")),
  primaryColor: blankToNull(form.one("primaryColor")),
  accentColor: blankToNull(form.one("accentColor")),
  supportEmail: blankToNull(form.one("supportEmail")),
  logoUrl,
});

export function LogoForm({ action, csrf }: { action: string; csrf: string }) {
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

export function HostnameCard(props: { h: Hostname; n: number; base: string; csrf: string; admin: boolean }) {
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

/** POST …/hostnames: a custom hostname to claim (the page lists its DNS records once added). */
export function AddHostnameForm(props: { base: string; csrf: string; example: string }) {
  return (
    <FormCard
      id="add-host"
      title="Add a hostname"
      action={`${props.base}/hostnames`}
      csrf={props.csrf}
      button="Add the hostname"
    >
      <label for="wl-host">Hostname (no https://, no path)</label>
      <input
        id="wl-host"
        name="hostname"
        type="text"
        required
        maxlength={253}
        placeholder={props.example}
        autocomplete="off"
      />
    </FormCard>
  );
}

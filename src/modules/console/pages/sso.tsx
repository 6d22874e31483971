/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { ApiError, type ValidationIssue } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import { getSsoSettingsOperation, importSsoMetadataOperation, updateSsoSettingsOperation } from "../../sso/operations";
import { JIT_DEFAULT_ROLES, type SsoConfigSchema } from "../../sso/schemas";
import { tenantHref, tenantOf, When } from "../atoms";
import { blankToUndefined, ticked, withLabels } from "../form-values";
import { act, type CC, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf, type Flash, ROLE_LABEL } from "../layout";

/*
 * Single sign-on (docs/console.md, issue #46 item 4; docs/saml.md): a tenant admin gives the customer's IdP admin
 * our side (SP entity id, ACS URL, metadata URL: GET /v1/settings/sso's serviceProvider) and takes theirs in:
 * the IdP's metadata XML (POST /v1/settings/sso/metadata) or the fields by hand, SSO on or off, enforcement and
 * just-in-time accounts (PUT /v1/settings/sso). Every part calls those operations (callOperation: REST's
 * tenant_admin check and schemas). A metadata the service refuses is answered by this page again, with the
 * pasted XML kept and the reason under the field: a redirect would lose up to 512 KiB of pasted text.
 */

type Sso = z.infer<typeof SsoConfigSchema>;

/** A certificate this close to its end is flagged: the IdP admin needs time to rotate. */
const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;

const LABELS = {
  entryPoint: "SSO URL",
  idpEntityId: "IdP entity id",
  idpCertificates: "Signing certificate",
  "idpCertificates.0": "Signing certificate",
  "idpCertificates.1": "Second signing certificate",
  defaultRole: "Role of new people",
};

/** One of our values, read-only to select, with a copy button (client/copy.ts) like the API key's. */
function CopyValue(props: { id: string; label: string; value: string; help: string }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        class="key"
        type="text"
        readonly
        value={props.value}
        autocomplete="off"
        spellcheck={false}
        aria-describedby={`${props.id}-help`}
      />
      <p id={`${props.id}-help`} class="muted small">
        {props.help}
      </p>
      <button
        type="button"
        class="secondary"
        data-copy={props.id}
        data-copied={`${props.label} copied to the clipboard.`}
        hidden
      >
        Copy the {props.label.toLowerCase()}
      </button>
    </>
  );
}

/** Not set up / set up and off / on, and whether a password still opens this business. */
function State({ sso }: { sso: Sso }) {
  const configured = sso.updatedAt !== null;
  return (
    <dl class="facts">
      <dt>Single sign-on</dt>
      <dd>
        {!configured ? (
          <span class="status warn">Not set up</span>
        ) : sso.enabled ? (
          <span class="status ok">On</span>
        ) : (
          <span class="status warn">Set up, off</span>
        )}
      </dd>
      <dt>Password sign-in</dt>
      <dd>
        {sso.enabled && sso.enforceSso
          ? "Closed: people here sign in through your identity provider"
          : sso.enforceSso
            ? "Open until single sign-on is on, then closed"
            : "Open"}
      </dd>
      {sso.updatedAt && (
        <>
          <dt>Changed</dt>
          <dd>
            <When iso={sso.updatedAt} />
          </dd>
        </>
      )}
    </dl>
  );
}

/** What we trust of their IdP: entity id, SSO URL, the signing certificates with their expiry. */
function TheirSide({ sso }: { sso: Sso }) {
  const soon = Date.now() + EXPIRY_WARNING_DAYS * DAY_MS;
  return (
    <>
      <dl class="facts">
        <dt>IdP entity id</dt>
        <dd>{sso.idpEntityId ? <code>{sso.idpEntityId}</code> : <span class="muted">not set</span>}</dd>
        <dt>SSO URL</dt>
        <dd>{sso.entryPoint ? <code>{sso.entryPoint}</code> : <span class="muted">not set</span>}</dd>
        <dt>New people</dt>
        <dd>
          {sso.jitProvisioning
            ? `get an account on their first sign-in, as ${ROLE_LABEL[sso.defaultRole]}`
            : "need an invite first"}
        </dd>
      </dl>
      {sso.certificates.length === 0 ? (
        <p class="muted">No signing certificate yet.</p>
      ) : (
        <table class="rows">
          <caption>Signing certificates ({sso.certificates.length})</caption>
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">Expires</th>
              <th scope="col">SHA-256 fingerprint</th>
            </tr>
          </thead>
          <tbody>
            {sso.certificates.map((cert) => (
              <tr>
                <th scope="row" data-label="Subject">
                  {cert.subject}
                </th>
                <td data-label="Expires">
                  <When iso={cert.validTo} />
                  {new Date(cert.validTo).getTime() < soon && (
                    <span class="status bad"> soon: import the IdP's new certificate before then</span>
                  )}
                </td>
                <td data-label="SHA-256 fingerprint">
                  <code>{cert.fingerprintSha256}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The page; `refused` re-renders the metadata form with what was pasted and the reason under it. */
async function ssoPage(c: CC, refused?: { xml: string; reason: string }, flash?: Flash): Promise<Response> {
  const sso = await callOperation<Sso>(c, getSsoSettingsOperation);
  const [tenant, csrf] = await Promise.all([tenantOf(c), csrfOf(c)]);
  const base = tenantHref(c, "/sso");
  const sp = sso.serviceProvider;
  const ready = Boolean(sso.entryPoint && sso.idpEntityId && sso.certificates.length);
  // enforcement closes this business to password sessions at once, this one included (identity/access.ts)
  const signIn = c.var.consoleSession?.principal.signIn;
  const byPassword = c.var.access.via === "tenant" && !(signIn?.method === "sso" && signIn.tenantId === tenant.id);
  return page(
    c,
    { title: "Single sign-on", section: "sso", tenant, flash, status: refused ? 400 : 200 },
    <>
      <h1>Single sign-on</h1>
      <p class="muted">
        Let people sign in to this business through your company's identity provider (Okta, Microsoft Entra ID, Google
        Workspace or any SAML 2.0 provider).
      </p>
      <State sso={sso} />
      {sso.updatedAt === null && (
        <p class="card">
          Not set up yet. First, create a SAML application at your identity provider with the three values under “Our
          side”; then paste the metadata it gives you under “Import your identity provider's metadata”.
        </p>
      )}
      <section class="card" aria-labelledby="ours">
        <h2 id="ours">Our side: give these to your identity provider</h2>
        <CopyValue
          id="sp-entity"
          label="Entity ID"
          value={sp.entityId}
          help="Also called Audience URI or Identifier: the audience your provider's assertions must name."
        />
        <CopyValue
          id="sp-acs"
          label="ACS URL"
          value={sp.acsUrl}
          help="Also called Single sign-on URL or Reply URL: where your provider posts its answer (HTTP-POST)."
        />
        <CopyValue
          id="sp-metadata"
          label="Metadata URL"
          value={sp.metadataUrl}
          help="Providers that read metadata take both values from here. Name ID format: email address."
        />
        <p>
          <a href={sp.metadataUrl} download="sp-metadata.xml">
            Download our metadata (XML)
          </a>
        </p>
      </section>
      <section class="card" aria-labelledby="theirs">
        <h2 id="theirs">Your identity provider</h2>
        <TheirSide sso={sso} />
        <form method="post" action={`${base}/enabled`}>
          <Csrf token={csrf} />
          <input type="hidden" name="enabled" value={sso.enabled ? "false" : "true"} />
          <div class="actions">
            {sso.enabled ? (
              <button type="submit" class="danger">
                Turn single sign-on off
              </button>
            ) : (
              <button type="submit" disabled={!ready}>
                Turn single sign-on on
              </button>
            )}
          </div>
        </form>
        {!sso.enabled && !ready && (
          <p class="muted small">It can be turned on once the IdP entity id, SSO URL and a certificate are set.</p>
        )}
        {sso.enabled && (
          <p class="small">
            Sign-in link for your people: <a href={sp.loginUrl}>{sp.loginUrl}</a>
          </p>
        )}
      </section>
      <section class="card" aria-labelledby="import">
        <h2 id="import">Import your identity provider's metadata</h2>
        <form method="post" action={`${base}/metadata`}>
          <Csrf token={csrf} />
          <label for="sso-metadata">Metadata XML</label>
          <textarea
            id="sso-metadata"
            name="metadataXml"
            rows={8}
            spellcheck={false}
            aria-invalid={refused ? "true" : undefined}
            aria-describedby={refused ? "sso-metadata-error sso-metadata-help" : "sso-metadata-help"}
          >
            {refused?.xml ?? ""}
          </textarea>
          {refused && (
            <p id="sso-metadata-error" class="field-error">
              {refused.reason}
            </p>
          )}
          <p id="sso-metadata-help" class="muted small">
            Paste the whole XML file your provider offers for this application. It sets the IdP entity id, the SSO URL
            and the signing certificates; whether single sign-on is on stays as it is.
          </p>
          <div class="actions">
            <button type="submit">Import the metadata</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="by-hand">
        <h2 id="by-hand">Settings</h2>
        <form method="post" action={base}>
          <Csrf token={csrf} />
          <label for="sso-entity">IdP entity id</label>
          <input id="sso-entity" name="idpEntityId" type="text" value={sso.idpEntityId ?? ""} autocomplete="off" />
          <label for="sso-url">SSO URL (HTTP-Redirect)</label>
          <input id="sso-url" name="entryPoint" type="url" value={sso.entryPoint ?? ""} autocomplete="off" />
          <label for="sso-cert">Signing certificate (PEM)</label>
          <textarea id="sso-cert" name="idpCertificates" rows={4} spellcheck={false} aria-describedby="sso-cert-help" />
          <p id="sso-cert-help" class="muted small">
            Empty keeps the certificates shown above. Paste two during a rotation; what you paste replaces them.
          </p>
          <label class="check" for="sso-jit">
            <input id="sso-jit" type="checkbox" name="jitProvisioning" value="true" checked={sso.jitProvisioning} />
            <span>Make an account for someone new on their first sign-in</span>
          </label>
          <label for="sso-role">Role of new people</label>
          <select id="sso-role" name="defaultRole">
            {JIT_DEFAULT_ROLES.map((r) => (
              <option value={r} selected={r === sso.defaultRole}>
                {ROLE_LABEL[r]}
              </option>
            ))}
          </select>
          <label class="check" for="sso-enforce">
            <input
              id="sso-enforce"
              type="checkbox"
              name="enforceSso"
              value="true"
              checked={sso.enforceSso}
              aria-describedby="sso-enforce-help"
            />
            <span>Require single sign-on</span>
          </label>
          <p id="sso-enforce-help" class="muted small">
            While single sign-on is on, a password sign-in no longer opens this business: its people sign in through
            your identity provider (platform and agency admins keep their password access, so a broken set-up can be
            repaired).
            {byPassword &&
              " You signed in with a password: sign in through your identity provider before you require it."}
          </p>
          <div class="actions">
            <button type="submit">Save the settings</button>
          </div>
        </form>
      </section>
    </>,
  );
}

export const ssoSettingsPage = (c: CC) => ssoPage(c);

const back = (c: CC) => tenantHref(c, "/sso");

/** The PEM blocks of a pasted text (one or two certificates); text without one is passed on for the schema's refusal. */
function certificatesOf(text: string): string[] | undefined {
  if (!text.trim()) return undefined;
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  return blocks ?? [text];
}

/** REST: PUT /v1/settings/sso (tenant_admin), the fields of the settings form. */
export async function ssoSettingsSubmit(c: CC): Promise<Response> {
  return act(c, back(c), () =>
    withLabels(LABELS, async () => {
      const form = await formOf(c);
      await callOperation<Sso>(c, updateSsoSettingsOperation, {
        body: {
          idpEntityId: blankToUndefined(form.one("idpEntityId")),
          entryPoint: blankToUndefined(form.one("entryPoint")),
          idpCertificates: certificatesOf(form.one("idpCertificates")),
          jitProvisioning: ticked(form.one("jitProvisioning")),
          defaultRole: form.one("defaultRole") || undefined,
          enforceSso: ticked(form.one("enforceSso")),
        },
      });
      return redirectTo(c, back(c), { kind: "notice", text: "The single sign-on settings are saved." });
    }),
  );
}

/** REST: PUT /v1/settings/sso with `enabled` only. */
export async function ssoEnabledSubmit(c: CC): Promise<Response> {
  return act(c, back(c), () =>
    withLabels(LABELS, async () => {
      const enabled = (await formOf(c)).one("enabled") === "true";
      const after = await callOperation<Sso>(c, updateSsoSettingsOperation, { body: { enabled } });
      return redirectTo(c, back(c), {
        kind: "notice",
        text: enabled
          ? `Single sign-on is on: people sign in at ${after.serviceProvider.loginUrl}.`
          : "Single sign-on is off: people sign in with their passwords.",
      });
    }),
  );
}

/** The metadata's refusal as the sentence under the field, or null when it is not about the metadata. */
function metadataRefusal(e: unknown): string | null {
  if (!(e instanceof ApiError) || e.code !== "VALIDATION_ERROR") return null;
  const issue = ((e.details?.issues as ValidationIssue[] | undefined) ?? []).find((i) => i.path === "metadataXml");
  if (!issue) return null;
  return `This metadata cannot be used: ${issue.message.replace(/\.$/, "")}. Download it again from your identity provider and paste all of it.`;
}

/** REST: POST /v1/settings/sso/metadata (tenant_admin). */
export async function ssoMetadataSubmit(c: CC): Promise<Response> {
  return act(c, back(c), async () => {
    const xml = (await formOf(c)).one("metadataXml");
    if (!xml.trim()) return ssoPage(c, { xml, reason: "Paste your identity provider's metadata XML first." });
    let after: Sso;
    try {
      after = await callOperation<Sso>(c, importSsoMetadataOperation, { body: { metadataXml: xml } });
    } catch (e) {
      const reason = metadataRefusal(e);
      if (reason) return ssoPage(c, { xml, reason });
      throw e;
    }
    return redirectTo(c, back(c), {
      kind: "notice",
      text: `Imported ${after.idpEntityId}: sign-ins go to ${after.entryPoint}.${
        after.enabled ? "" : " Turn single sign-on on when you are ready."
      }`,
    });
  });
}

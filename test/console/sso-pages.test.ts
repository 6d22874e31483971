// The console's Single sign-on page over HTTP (#46 item 4): our SP values as the public metadata serves them, the
// IdP's metadata taken in (read back over REST), a malformed or certificate-less metadata refused with a sentence
// under the field, the settings form, SSO on and off. Who sees the page and may post its forms: matrix.test.ts.
import { X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { IDP, idpMetadataXml, KEYS } from "../sso/idp";
import { BASE } from "../sso/setup";
import { browsersOf, type ConsoleBrowser, textOf } from "./helpers";

let w: World;
let admin: ConsoleBrowser;
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;
const rest = () => w.as("tenantAdmin");
const browser = browsersOf(() => w.users);
/** the value of the read-only field with this id, as the browser shows it */
const fieldValue = (html: string, id: string) => new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1];

beforeAll(async () => {
  w = await createWorld();
  admin = await browser("tenantAdmin");
}, 60_000);

describe("Single sign-on", () => {
  it("before any set-up: says what to do first, and shows our values as the public metadata serves them", async () => {
    const page = await admin.get(t("/sso"));
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain("Single sign-on Not set up");
    expect(text).toContain("Not set up yet. First, create a SAML application at your identity provider");
    expect(text).toContain("Password sign-in Open");

    const metadataUrl = `${BASE}/auth/saml/${w.tenantA.slug}/metadata`;
    const served = await request("GET", `/auth/saml/${w.tenantA.slug}/metadata`, { unchecked: true });
    expect(served.status).toBe(200);
    const xml = String(served.text);
    const entityId = /entityID="([^"]+)"/.exec(xml)![1];
    const acsUrl = /AssertionConsumerService[^>]*Location="([^"]+)"/.exec(xml)![1];
    expect([entityId, acsUrl]).toEqual([metadataUrl, `${BASE}/auth/saml/${w.tenantA.slug}/callback`]);
    expect(fieldValue(page.text, "sp-entity")).toBe(entityId);
    expect(fieldValue(page.text, "sp-acs")).toBe(acsUrl);
    expect(fieldValue(page.text, "sp-metadata")).toBe(metadataUrl);
    expect(page.text).toContain(`<a href="${metadataUrl}" download="sp-metadata.xml">`);
    for (const id of ["sp-entity", "sp-acs", "sp-metadata"]) expect(page.text).toContain(`data-copy="${id}"`);
    // turning it on before the IdP's values are there is refused with REST's reasons, by the form's names
    const refused = await admin.follow(await admin.post(t("/sso/enabled"), { enabled: "true" }));
    expect(textOf(refused.text)).toContain(
      "Please check the form: SSO URL: Required when SSO is enabled; IdP entity id: Required when SSO is enabled; " +
        "Signing certificate: At least one IdP signing certificate is required when SSO is enabled.",
    );
    expect((await rest().get("/v1/settings/sso")).body.updatedAt).toBeNull();
  });

  it("a malformed metadata, one without a signing certificate and an empty field are refused under the field", async () => {
    const cases: [string, string][] = [
      ["<EntityDescriptor", "This metadata cannot be used: Not well-formed XML (a DOCTYPE is not accepted)."],
      [idpMetadataXml([]), 'This metadata cannot be used: No signing certificate (KeyDescriptor use="signing").'],
      ["  ", "Paste your identity provider's metadata XML first."],
    ];
    for (const [xml, sentence] of cases) {
      const res = await admin.post(t("/sso/metadata"), { metadataXml: xml });
      expect(res.status, xml).toBe(400);
      expect(textOf(res.text), xml).toContain(sentence);
      expect(res.text).toContain('aria-invalid="true"');
      expect(res.text).toMatch(/<p id="sso-metadata-error" class="field-error">/);
    }
    // what was pasted is still there to correct
    const kept = await admin.post(t("/sso/metadata"), { metadataXml: "<EntityDescriptor" });
    expect(kept.text).toContain(">&lt;EntityDescriptor</textarea>");
    expect((await rest().get("/v1/settings/sso")).body).toMatchObject({ idpEntityId: null, certificates: [] });
  });

  it("an imported metadata shows the IdP's entity id, SSO URL and certificate expiry; another tenant's stays", async () => {
    const text = await admin.submit(t("/sso/metadata"), { metadataXml: idpMetadataXml([KEYS.idp1.cert]) });
    expect(text).toContain(
      `Imported ${IDP.entityId}: sign-ins go to ${IDP.ssoUrl}. Turn single sign-on on when you are ready.`,
    );
    expect(text).toContain(`IdP entity id ${IDP.entityId} SSO URL ${IDP.ssoUrl}`);
    expect(text).toContain("Single sign-on Set up, off");
    const cert = new X509Certificate(KEYS.idp1.cert);
    const page = await admin.get(t("/sso"));
    expect(page.text).toContain(`<time datetime="${new Date(cert.validTo).toISOString()}">`);
    expect(textOf(page.text)).toContain(cert.fingerprint256);
    expect((await rest().get("/v1/settings/sso")).body).toMatchObject({
      enabled: false,
      idpEntityId: IDP.entityId,
      entryPoint: IDP.ssoUrl,
      certificates: [{ fingerprintSha256: cert.fingerprint256 }],
    });
    expect((await w.as("tenantBAdmin").get("/v1/settings/sso")).body.idpEntityId).toBeNull();
    expect((await (await browser("tenantBAdmin")).get(t("/sso"))).status).toBe(404);
  });

  it("turns single sign-on on and off", async () => {
    const on = await admin.submit(t("/sso/enabled"), { enabled: "true" });
    expect(on).toContain(`Single sign-on is on: people sign in at ${BASE}/auth/saml/${w.tenantA.slug}/init.`);
    expect(on).toContain("Single sign-on On");
    expect(on).toContain("Turn single sign-on off");
    expect((await rest().get("/v1/settings/sso")).body.enabled).toBe(true);
    const off = await admin.submit(t("/sso/enabled"), { enabled: "false" });
    expect(off).toContain("Single sign-on is off: people sign in with their passwords.");
    expect(off).toContain("Single sign-on Set up, off");
    expect((await rest().get("/v1/settings/sso")).body.enabled).toBe(false);
  });

  it("the settings form changes what PUT changes; a bad certificate is refused with a sentence", async () => {
    const text = await admin.submit(t("/sso"), {
      idpEntityId: "https://idp.example.test/other",
      entryPoint: "https://idp.example.test/other/sso",
      jitProvisioning: "true",
      defaultRole: "viewer",
    });
    expect(text).toContain("The single sign-on settings are saved.");
    expect(text).toContain("get an account on their first sign-in, as Viewer");
    expect((await rest().get("/v1/settings/sso")).body).toMatchObject({
      idpEntityId: "https://idp.example.test/other",
      entryPoint: "https://idp.example.test/other/sso",
      jitProvisioning: true,
      defaultRole: "viewer",
      enforceSso: false,
      // an empty certificate field keeps the stored one
      certificates: [{ fingerprintSha256: new X509Certificate(KEYS.idp1.cert).fingerprint256 }],
    });
    const bad = await admin.submit(t("/sso"), { idpCertificates: "not a certificate" });
    expect(bad).toContain("Please check the form: Signing certificate: Must be one PEM certificate");
  });
});

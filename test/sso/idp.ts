// A test-only identity provider: builds SAML 2.0 responses and signs them with xml-crypto using the
// throwaway keys in test/fixtures/saml (never trusted anywhere else).
import { SignedXml } from "xml-crypto";
import expiredCert from "../fixtures/saml/expired-cert.pem?raw";
import cert1 from "../fixtures/saml/idp1-cert.pem?raw";
import key1 from "../fixtures/saml/idp1-key.pem?raw";
import cert2 from "../fixtures/saml/idp2-cert.pem?raw";
import key2 from "../fixtures/saml/idp2-key.pem?raw";

export const IDP = { entityId: "https://idp.example.test/metadata", ssoUrl: "https://idp.example.test/sso" };
export const KEYS = { idp1: { key: key1, cert: cert1 }, idp2: { key: key2, cert: cert2 } };
export { expiredCert };

const ALGORITHMS = {
  sha1: { signature: "http://www.w3.org/2000/09/xmldsig#rsa-sha1", digest: "http://www.w3.org/2000/09/xmldsig#sha1" },
  sha256: {
    signature: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    digest: "http://www.w3.org/2001/04/xmlenc#sha256",
  },
} as const;

export interface ResponseOptions {
  acsUrl: string;
  audience: string;
  inResponseTo: string | null;
  nameId: string;
  issuer?: string;
  recipient?: string;
  destination?: string;
  /** default now - 1 minute */
  notBefore?: Date;
  /** default now + 5 minutes */
  notOnOrAfter?: Date;
  attributes?: Record<string, string | string[]>;
  assertionId?: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
let seq = 0;
export const newSamlId = () =>
  `_t${Date.now().toString(16)}${(seq++).toString(16)}${Math.random().toString(16).slice(2)}`;

export function assertionXml(o: ResponseOptions): string {
  const now = new Date();
  const notBefore = (o.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
  const notOnOrAfter = (o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
  const irt = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : "";
  const attributes = Object.entries(o.attributes ?? {})
    .map(
      ([name, v]) =>
        `<saml:Attribute Name="${esc(name)}">${(Array.isArray(v) ? v : [v]).map((x) => `<saml:AttributeValue>${esc(x)}</saml:AttributeValue>`).join("")}</saml:Attribute>`,
    )
    .join("");
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.assertionId ?? newSamlId()}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${esc(o.issuer ?? IDP.entityId)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(o.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(o.recipient ?? o.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${newSamlId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : "") +
    `</saml:Assertion>`
  );
}

export function responseXml(o: ResponseOptions, assertion: string): string {
  const irt = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : "";
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newSamlId()}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${esc(o.destination ?? o.acsUrl)}"${irt}>` +
    `<saml:Issuer>${esc(o.issuer ?? IDP.entityId)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`
  );
}

/** Signs the (only) Assertion in xml with an enveloped signature placed after its Issuer. */
export function signAssertion(xml: string, key: string, algorithm: keyof typeof ALGORITHMS = "sha256"): string {
  const sig = new SignedXml({
    privateKey: key,
    signatureAlgorithm: ALGORITHMS[algorithm].signature,
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: ALGORITHMS[algorithm].digest,
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
  });
  sig.computeSignature(xml, {
    location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: "after" },
  });
  return sig.getSignedXml();
}

/** A complete response whose assertion is signed by `key` (default: the idp1 key). */
export function signedResponse(
  o: ResponseOptions,
  key = KEYS.idp1.key,
  algorithm: keyof typeof ALGORITHMS = "sha256",
): string {
  return signAssertion(responseXml(o, assertionXml(o)), key, algorithm);
}

export const base64 = (xml: string) => Buffer.from(xml, "utf8").toString("base64");

/** The IdP's metadata document for the settings import. */
export function idpMetadataXml(certs: string[], ssoUrl = IDP.ssoUrl): string {
  const der = (pem: string) => pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  return (
    `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${IDP.entityId}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
    certs
      .map(
        (c) =>
          `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${der(c)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
      )
      .join("") +
    `<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ssoUrl}/post"/>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`
  );
}

import { validationError } from "../../lib/errors";
import { HttpUrl } from "../../lib/validators";
import { parseIdpCertificate, toPem } from "./certificates";
import { child, children, descendants, NS, parseXml, text } from "./xml";

const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";

export interface IdpMetadata {
  idpEntityId: string;
  entryPoint: string;
  idpCertificates: string[];
}

const refuse = (message: string) => validationError([{ path: "metadataXml", message }], "Invalid IdP metadata");

/** Reads entity id, HTTP-Redirect SSO URL and signing certificates from one IdP's SAML 2.0 metadata. */
export function parseIdpMetadata(xml: string): IdpMetadata {
  const doc = parseXml(xml);
  if (!doc?.documentElement) throw refuse("Not well-formed XML (a DOCTYPE is not accepted)");
  const idps = descendants(doc, NS.metadata, "EntityDescriptor").filter((ed) =>
    child(ed, NS.metadata, "IDPSSODescriptor"),
  );
  if (idps.length === 0) throw refuse("No EntityDescriptor with an IDPSSODescriptor");
  if (idps.length > 1)
    throw refuse(`${idps.length} identity providers in one document; import the one for this tenant`);
  const entity = idps[0]!;
  const descriptor = child(entity, NS.metadata, "IDPSSODescriptor")!;

  const idpEntityId = entity.getAttribute("entityID")?.trim();
  if (!idpEntityId) throw refuse("The EntityDescriptor has no entityID");

  const sso = children(descriptor, NS.metadata, "SingleSignOnService").find(
    (s) => s.getAttribute("Binding") === REDIRECT_BINDING,
  );
  const entryPoint = HttpUrl.safeParse(sso?.getAttribute("Location")?.trim());
  if (!entryPoint.success) throw refuse("No HTTP-Redirect SingleSignOnService with an http(s) Location");

  const signing = children(descriptor, NS.metadata, "KeyDescriptor").filter(
    (k) => (k.getAttribute("use") ?? "signing") === "signing",
  );
  const certificates = [
    ...new Set(signing.flatMap((k) => descendants(k, NS.dsig, "X509Certificate").map((c) => text(c) ?? ""))),
  ];
  if (certificates.length === 0) throw refuse('No signing certificate (KeyDescriptor use="signing")');
  if (certificates.length > 2) throw refuse(`${certificates.length} signing certificates; at most 2 are kept at once`);
  const idpCertificates = certificates.map((b64, i) => {
    const parsed = b64 ? parseIdpCertificate(toPem(b64)) : { error: "empty" };
    if ("error" in parsed) throw refuse(`Signing certificate ${i + 1}: ${parsed.error}`);
    return parsed.pem;
  });

  return { idpEntityId, entryPoint: entryPoint.data, idpCertificates };
}

import type { Document, Element } from "xmldom-0.9";
import type { SamlSignatureAlgorithm } from "../../db/schema";
import { SamlRejection } from "./rejection";
import { child, children, descendants, NS, parseXml, text } from "./xml";

const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

/** Strength of each accepted XML-DSig algorithm; anything else (HMAC, MD5, unknown) is refused. */
const SIGNATURE_STRENGTH: Record<string, number> = {
  "http://www.w3.org/2000/09/xmldsig#rsa-sha1": 1,
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": 2,
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": 3,
};
const DIGEST_STRENGTH: Record<string, number> = {
  "http://www.w3.org/2000/09/xmldsig#sha1": 1,
  "http://www.w3.org/2001/04/xmlenc#sha256": 2,
  "http://www.w3.org/2001/04/xmlenc#sha512": 3,
};
const MINIMUM: Record<SamlSignatureAlgorithm, number> = { sha1: 1, sha256: 2, sha512: 3 };

const time = (value: string | null) => {
  const ms = value ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? null : ms;
};

export interface ExpectedResponse {
  acsUrl: string;
  idpEntityId: string;
  minimumAlgorithm: SamlSignatureAlgorithm;
  skewMs: number;
}

export interface ResponseEnvelope {
  inResponseTo: string | null;
}

/**
 * Checks on the whole (not yet verified) response before the library sees it. They can only
 * refuse, never accept: well-formed, a samlp:Response, no algorithm weaker than configured,
 * Destination (when present) = this ACS URL, a Response Issuer (when present) = the IdP, no
 * validity window already over or not yet open (which also gives those cases a precise reason).
 */
export function precheckResponse(xml: string, expected: ExpectedResponse, now: Date): ResponseEnvelope {
  const doc = parseXml(xml);
  const root = doc?.documentElement;
  if (!doc || !root || root.namespaceURI !== NS.protocol || root.localName !== "Response")
    throw new SamlRejection("malformed");
  checkAlgorithms(doc, expected.minimumAlgorithm);
  const destination = root.getAttribute("Destination");
  if (destination && destination !== expected.acsUrl) throw new SamlRejection("destination_mismatch");
  const issuer = text(child(root, NS.assertion, "Issuer"));
  if (issuer && issuer !== expected.idpEntityId) throw new SamlRejection("issuer_mismatch");
  checkWindows(doc, expected.skewMs, now.getTime());
  return { inResponseTo: root.getAttribute("InResponseTo") || null };
}

function checkAlgorithms(doc: Document, minimum: SamlSignatureAlgorithm) {
  const used = [
    ...descendants(doc, NS.dsig, "SignatureMethod").map(
      (e) => SIGNATURE_STRENGTH[e.getAttribute("Algorithm") ?? ""] ?? 0,
    ),
    ...descendants(doc, NS.dsig, "DigestMethod").map((e) => DIGEST_STRENGTH[e.getAttribute("Algorithm") ?? ""] ?? 0),
  ];
  if (used.some((strength) => strength < MINIMUM[minimum])) throw new SamlRejection("weak_algorithm");
}

function checkWindows(doc: Document, skewMs: number, nowMs: number) {
  const windows = [
    ...descendants(doc, NS.assertion, "Conditions"),
    ...descendants(doc, NS.assertion, "SubjectConfirmationData"),
  ];
  for (const w of windows) {
    const notOnOrAfter = time(w.getAttribute("NotOnOrAfter"));
    const notBefore = time(w.getAttribute("NotBefore"));
    if (notOnOrAfter !== null && nowMs - skewMs >= notOnOrAfter) throw new SamlRejection("expired");
    if (notBefore !== null && nowMs + skewMs < notBefore) throw new SamlRejection("not_yet_valid");
  }
}

export interface VerifiedAssertion {
  assertionId: string;
  /** the latest NotOnOrAfter in the assertion: until then its id must stay on the replay list */
  notOnOrAfter: Date;
}

/**
 * Checks the library leaves to us, on the signature-verified assertion only: Issuer = this tenant's
 * IdP; a bearer SubjectConfirmation whose Recipient is this ACS URL, whose InResponseTo is the
 * request we sent, and which is inside its validity window.
 */
export function checkVerifiedAssertion(
  assertionXml: string,
  envelope: ResponseEnvelope,
  expected: ExpectedResponse,
  now: Date,
): VerifiedAssertion {
  const assertion = parseXml(assertionXml)?.documentElement;
  if (assertion?.localName !== "Assertion") throw new SamlRejection("malformed");
  if (text(child(assertion, NS.assertion, "Issuer")) !== expected.idpEntityId)
    throw new SamlRejection("issuer_mismatch");
  const assertionId = assertion.getAttribute("ID");
  if (!assertionId) throw new SamlRejection("malformed");

  const subject = child(assertion, NS.assertion, "Subject");
  const confirmations = subject
    ? children(subject, NS.assertion, "SubjectConfirmation").filter((c) => c.getAttribute("Method") === BEARER)
    : [];
  const data = confirmations
    .map((c) => child(c, NS.assertion, "SubjectConfirmationData"))
    .filter((d): d is Element => Boolean(d));
  const toUs = data.filter((d) => d.getAttribute("Recipient") === expected.acsUrl);
  if (toUs.length === 0) throw new SamlRejection("recipient_mismatch");
  const answering = toUs.filter(
    (d) => envelope.inResponseTo !== null && d.getAttribute("InResponseTo") === envelope.inResponseTo,
  );
  if (answering.length === 0) throw new SamlRejection("unknown_request");
  const nowMs = now.getTime();
  const valid = answering.filter((d) => {
    const notOnOrAfter = time(d.getAttribute("NotOnOrAfter"));
    const notBefore = time(d.getAttribute("NotBefore"));
    return (
      notOnOrAfter !== null &&
      nowMs - expected.skewMs < notOnOrAfter &&
      (notBefore === null || nowMs + expected.skewMs >= notBefore)
    );
  });
  if (valid.length === 0) throw new SamlRejection("subject_confirmation_invalid");

  const conditions = child(assertion, NS.assertion, "Conditions");
  const ends = [...valid, ...(conditions ? [conditions] : [])].map((e) => time(e.getAttribute("NotOnOrAfter")) ?? 0);
  return { assertionId, notOnOrAfter: new Date(Math.max(...ends)) };
}

import { X509Certificate } from "node:crypto";

const PEM_BLOCK = /^-----BEGIN CERTIFICATE-----\s*([A-Za-z0-9+/=\s]+?)\s*-----END CERTIFICATE-----$/;
const MIN_RSA_BITS = 2048;
export const MAX_PEM_CHARS = 16_384;

export interface CertificateSummary {
  fingerprintSha256: string;
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
}

/** Re-wraps base64 DER at 64 columns: the one PEM form stored and handed to the verifier. */
export const toPem = (base64: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64
    .replace(/\s+/g, "")
    .match(/.{1,64}/g)!
    .join("\n")}\n-----END CERTIFICATE-----`;

/**
 * Parses one X.509 certificate in PEM form and checks it can verify IdP signatures: an RSA key of
 * at least 2048 bits (what XML-DSig rsa-sha* needs), not expired. Returns the normalised PEM, or
 * the reason it is refused.
 */
export function parseIdpCertificate(input: string, now = new Date()): { pem: string } | { error: string } {
  const m = PEM_BLOCK.exec(input.trim());
  if (!m) return { error: "Must be one PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)" };
  const pem = toPem(m[1]!);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return { error: "Not a valid X.509 certificate" };
  }
  const key = cert.publicKey;
  if (key.asymmetricKeyType !== "rsa") return { error: "The certificate's key must be RSA" };
  if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    return { error: `The RSA key must be at least ${MIN_RSA_BITS} bits` };
  if (new Date(cert.validTo).getTime() <= now.getTime())
    return { error: `The certificate expired on ${new Date(cert.validTo).toISOString()}` };
  return { pem };
}

/** What the API shows of a stored certificate: never the certificate itself. */
export function describeCertificate(pem: string): CertificateSummary {
  const cert = new X509Certificate(pem);
  return {
    fingerprintSha256: cert.fingerprint256,
    subject: cert.subject.replace(/\n/g, ", "),
    issuer: cert.issuer.replace(/\n/g, ", "),
    validFrom: new Date(cert.validFrom).toISOString(),
    validTo: new Date(cert.validTo).toISOString(),
  };
}

/**
 * What a public route hands the request's host guard (src/middleware/public-host.ts): the tenant that
 * owns the resource it is about to serve. It resolves when the request's host serves that tenant and
 * throws a 404 otherwise, so services take it as `admit` and never compare hosts themselves.
 */
export type HostGuard = (tenantId: string) => Promise<void>;

/**
 * Already canonical: lower-case ASCII labels, no trailing dot, and a last label that is not a number
 * (the URL parser reads `0x7f.1` as the IPv4 address 127.0.0.1). What nearly every request carries.
 */
const CANONICAL = /^(?:[a-z0-9-]+\.)*(?!(?:\d+|0x[0-9a-f]*)$)[a-z0-9-]+$/;

/**
 * The one spelling of a hostname that the host guard compares and custom hostnames are stored in: the
 * WHATWG URL parser's (lower case, IDNA to punycode, percent-decoded, IPv4 numbers as dotted quads,
 * IPv6 in brackets), with trailing dots removed (`reviews.example.com.` is the same DNS name). Pass a
 * host without its port. A string that is no host at all is returned as it is: it equals no stored
 * hostname. A canonical name (the common case) costs one regular-expression test.
 */
export function canonicalHostname(host: string): string {
  if (CANONICAL.test(host)) return host;
  let parsed: string;
  try {
    parsed = new URL(`http://${host}/`).hostname;
  } catch {
    return host;
  }
  return parsed.replace(/\.+$/, "");
}

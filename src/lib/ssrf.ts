/**
 * Outbound URL guard for user-supplied targets (webhooks, automation send_webhook). Workers cannot
 * resolve DNS before fetch, so this judges the URL as the WHATWG URL parser reads it: scheme,
 * credentials, and hosts that are (or spell, in any IPv4/IPv6 notation, or embed in an IPv6 transition
 * form: IPv4-mapped, -translated, -compatible, NAT64, 6to4, Teredo) private, loopback, link-local,
 * CGNAT, unspecified, multicast/reserved or cloud metadata addresses. Checked when a URL is saved and again before each
 * request; requests go out with `redirect: "manual"` so a public host cannot bounce us inward.
 */

export interface OutboundUrlOptions {
  /** dev/test flag (ALLOW_INSECURE_WEBHOOKS): allows http and loopback hosts, nothing else */
  allowInsecure?: boolean;
}

export type OutboundUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const METADATA_HOSTS = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

type Range = [base: number, bits: number, label: string];

const ip4 = (a: number, b: number, c: number, d: number) => ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;

const IPV4_BLOCKED: Range[] = [
  [ip4(0, 0, 0, 0), 8, "unspecified"],
  [ip4(10, 0, 0, 0), 8, "private"],
  [ip4(100, 64, 0, 0), 10, "carrier-grade NAT"],
  [ip4(127, 0, 0, 0), 8, "loopback"],
  [ip4(169, 254, 0, 0), 16, "link-local"],
  [ip4(172, 16, 0, 0), 12, "private"],
  [ip4(192, 0, 0, 0), 24, "IETF protocol assignments"],
  [ip4(192, 168, 0, 0), 16, "private"],
  [ip4(198, 18, 0, 0), 15, "benchmarking"],
  [ip4(224, 0, 0, 0), 4, "multicast"],
  [ip4(240, 0, 0, 0), 4, "reserved"],
];

const inRange = (addr: number, [base, bits]: Range) => bits === 0 || addr >>> (32 - bits) === base >>> (32 - bits);

/**
 * Parses an IPv4 literal the way URL parsers and inet_aton do: 1 to 4 parts, each decimal, octal
 * (leading 0) or hex (0x); the last part fills the remaining bytes. Returns null for non-literals.
 */
export function parseIpv4Literal(host: string): number | null {
  const parts = host.split(".");
  if (parts.length > 4 || parts.some((p) => p === "")) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = Number(p);
    else return null;
    if (!Number.isFinite(n)) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  return nums.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + last;
}

/** Parses an IPv6 literal (without brackets) into 8 16-bit groups; null when it is not one. */
export function parseIpv6(host: string): number[] | null {
  let h = host.toLowerCase();
  const zone = h.indexOf("%");
  if (zone >= 0) h = h.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(h) || !h.includes(":")) return null;
  const lastColon = h.lastIndexOf(":");
  const v4 = h.slice(lastColon + 1);
  if (v4.includes(".")) {
    // a trailing dotted quad is the last two groups
    const n = /^\d{1,3}(\.\d{1,3}){3}$/.test(v4) ? parseIpv4Literal(v4) : null;
    if (n === null) return null;
    h = `${h.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = h.split("::");
  if (halves.length > 2) return null;
  const group = (s: string) =>
    s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  const explicit = head.length + rest.length;
  if ([...head, ...rest].some(Number.isNaN)) return null;
  if (halves.length === 1 && explicit !== 8) return null;
  if (halves.length === 2 && explicit > 7) return null;
  const zeros = new Array(8 - explicit).fill(0);
  return halves.length === 2 ? [...head, ...zeros, ...rest] : head;
}

function classifyIpv4(addr: number): string | null {
  return IPV4_BLOCKED.find((r) => inRange(addr, r))?.[2] ?? null;
}

/** The IPv4 address held by groups g[i] and g[i + 1]. */
const v4At = (g: number[], i: number) => ((g[i]! << 16) >>> 0) + g[i + 1]!;
const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

/**
 * The IPv6 forms that carry an IPv4 address, which the host's own stack, a translator or a tunnel
 * relay may turn into a packet to that IPv4 address. They are refused whole, whatever they embed (a
 * public IPv4 target is written as IPv4); `v4` lists the embedded addresses where the form fixes their place.
 */
function embeddedIpv4(g: number[]): { form: string; v4: [role: string, addr: number][] } | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (RFC 4291 2.5.5.2), what the URL parser writes for [::ffff:127.0.0.1]
  if (zero(0, 5) && g[5] === 0xffff) return { form: "IPv4-mapped", v4: [["", v4At(g, 6)]] };
  // ::ffff:0:a.b.c.d (RFC 2765, SIIT), e.g. [::ffff:0:7f00:1]
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return { form: "IPv4-translated", v4: [["", v4At(g, 6)]] };
  // ::a.b.c.d (RFC 4291 2.5.5.1, deprecated); :: and ::1 are classified before
  if (zero(0, 6)) return { form: "IPv4-compatible", v4: [["", v4At(g, 6)]] };
  // 64:ff9b::/96 (RFC 6052) and the local-use 64:ff9b:1::/48 (RFC 8215), whose IPv4 place depends on the prefix
  if (g[0] === 0x64 && g[1] === 0xff9b) return { form: "NAT64", v4: zero(2, 6) ? [["", v4At(g, 6)]] : [] };
  // 2002:AABB:CCDD::/48 (RFC 3056): the 6to4 router's IPv4 address
  if (g[0] === 0x2002) return { form: "6to4", v4: [["", v4At(g, 1)]] };
  // 2001:0::/32 (RFC 4380): the Teredo server's address in groups 2-3, the client's (inverted) in 6-7
  if (g[0] === 0x2001 && g[1] === 0)
    return {
      form: "Teredo",
      v4: [
        ["server ", v4At(g, 2)],
        ["client ", ~v4At(g, 6) >>> 0],
      ],
    };
  return null;
}

function classifyIpv6(g: number[]): string | null {
  const allZero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (allZero(0, 8)) return "unspecified";
  if (allZero(0, 7) && g[7] === 1) return "loopback";
  const embedded = embeddedIpv4(g);
  if (embedded) {
    const named = embedded.v4.map(
      ([role, v4]) => `, ${role}${dotted(v4)}${classifyIpv4(v4) ? ` ${classifyIpv4(v4)}` : ""}`,
    );
    return `IPv4-embedded IPv6 (${embedded.form}${named.join("")})`;
  }
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0]! & 0xffc0) === 0xfec0) return "site-local";
  if ((g[0]! & 0xfe00) === 0xfc00) return "private";
  if ((g[0]! & 0xff00) === 0xff00) return "multicast";
  // 100::/64 (RFC 6666) and 2001:db8::/32 (RFC 3849) reach nothing public
  if (g[0] === 0x100 && allZero(1, 4)) return "discard-only";
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "documentation";
  return null;
}

/** Refuses URLs that may reach the service's own network; see the module comment. */
export function checkOutboundUrl(raw: string, opts: OutboundUrlOptions = {}): OutboundUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { ok: false, reason: `scheme ${url.protocol} is not allowed` };
  if (url.protocol === "http:" && !opts.allowInsecure) return { ok: false, reason: "only https URLs are allowed" };
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not allowed" };

  // the URL parser's reading (IPv4 numbers in any base already dotted, IDNA and percent-escapes undone);
  // trailing dots name the same host
  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  if (!host) return { ok: false, reason: "the URL has no host" };
  let label: string | null = null;
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = parseIpv6(host.slice(1, -1));
    label = groups ? classifyIpv6(groups) : "unparseable IPv6 address";
  } else {
    const v4 = parseIpv4Literal(host);
    if (v4 !== null) label = classifyIpv4(v4);
    else if (host === "localhost" || host.endsWith(".localhost")) label = "loopback";
    else if (METADATA_HOSTS.has(host)) label = "cloud metadata";
  }
  if (label === null) return { ok: true, url };
  if (label === "loopback" && opts.allowInsecure) return { ok: true, url };
  return { ok: false, reason: `${label} address ${host} is not allowed` };
}

/**
 * The one rule for dev-only stand-ins (plain http, loopback hosts, plaintext SMTP): they exist only
 * where ENVIRONMENT names a local environment, `wrangler dev` ("development", wrangler.toml's top
 * level) or the test pool ("test", vitest.config.mts). Anything else, staging and production
 * ([env.*] in wrangler.toml) and any name this list does not know, counts as deployed, so a typo
 * fails closed.
 */
const LOCAL_ENVIRONMENTS = new Set(["development", "test"]);

export const isLocalEnvironment = (env: { ENVIRONMENT?: string }) => LOCAL_ENVIRONMENTS.has(env.ENVIRONMENT ?? "");

/** Environments deployed to Cloudflare (wrangler.toml [env.*]): dev-only stand-ins are off there whatever the vars say. */
export const isDeployed = (env: { ENVIRONMENT?: string }) => !isLocalEnvironment(env);

export const allowInsecureWebhooks = (env: { ALLOW_INSECURE_WEBHOOKS?: string; ENVIRONMENT?: string }) =>
  env.ALLOW_INSECURE_WEBHOOKS === "true" && isLocalEnvironment(env);

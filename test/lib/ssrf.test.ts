import { describe, expect, it } from "vitest";
import { checkOutboundUrl, parseIpv4Literal, parseIpv6 } from "../../src/lib/ssrf";

const refused = (url: string, allowInsecure = false) => {
  const r = checkOutboundUrl(url, { allowInsecure });
  return r.ok ? null : r.reason;
};

describe("SSRF guard", () => {
  it.each([
    ["https://127.0.0.1/hook", "loopback"],
    ["https://10.0.0.1/hook", "private"],
    ["https://172.16.5.4/hook", "private"],
    ["https://192.168.1.1/hook", "private"],
    ["https://169.254.169.254/latest/meta-data/", "link-local"],
    ["https://100.64.0.1/", "carrier-grade NAT"],
    ["https://0.0.0.0/", "unspecified"],
    ["https://[::1]/hook", "loopback"],
    ["https://[::]/hook", "unspecified"],
    ["https://[fe80::1]/hook", "link-local"],
    ["https://[fd00::1]/hook", "private"],
    ["https://[::ffff:127.0.0.1]/hook", "IPv4-embedded"],
    ["https://[::ffff:a9fe:a9fe]/hook", "IPv4-embedded"],
    ["https://2130706433/", "loopback"],
    ["https://0x7f.1/", "loopback"],
    ["https://017700000001/", "loopback"],
    ["https://0x7f000001/", "loopback"],
    ["https://localhost/hook", "loopback"],
    ["https://api.localhost/hook", "loopback"],
    ["https://metadata.google.internal/computeMetadata/v1/", "cloud metadata"],
    ["https://224.0.0.1/", "multicast"],
  ])("refuses %s", (url, label) => {
    expect(refused(url)).toContain(label);
  });

  it("refuses other schemes, plain http, credentials and garbage", () => {
    expect(refused("file:///etc/passwd")).toBe("scheme file: is not allowed");
    expect(refused("ftp://example.com/x")).toBe("scheme ftp: is not allowed");
    expect(refused("gopher://example.com/x")).toBe("scheme gopher: is not allowed");
    expect(refused("http://hooks.example.com/x")).toBe("only https URLs are allowed");
    expect(refused("https://user:pass@hooks.example.com/x")).toBe("credentials in the URL are not allowed");
    expect(refused("not a url")).toBe("not a valid URL");
  });

  it("allows public https URLs, including public IP literals", () => {
    expect(checkOutboundUrl("https://hooks.example.com/reputation?x=1")).toMatchObject({ ok: true });
    expect(checkOutboundUrl("https://93.184.216.34/hook")).toMatchObject({ ok: true });
    expect(checkOutboundUrl("https://[2606:4700:4700::1111]/hook")).toMatchObject({ ok: true });
    expect(checkOutboundUrl("https://172.32.0.1/")).toMatchObject({ ok: true });
  });

  it("with the dev flag allows http and loopback, and still refuses private, link-local and metadata hosts", () => {
    expect(refused("http://127.0.0.1:8788/hook", true)).toBeNull();
    expect(refused("http://localhost:8788/hook", true)).toBeNull();
    expect(refused("http://[::1]:8788/hook", true)).toBeNull();
    expect(refused("http://hooks.example.com/x", true)).toBeNull();
    expect(refused("http://10.0.0.1/", true)).toContain("private");
    expect(refused("http://169.254.169.254/", true)).toContain("link-local");
    expect(refused("http://metadata.google.internal/", true)).toContain("cloud metadata");
    expect(refused("file:///etc/passwd", true)).toContain("scheme");
  });

  it("parses every IPv4 literal notation like inet_aton", () => {
    expect(parseIpv4Literal("2130706433")).toBe(0x7f000001);
    expect(parseIpv4Literal("0x7f.1")).toBe(0x7f000001);
    expect(parseIpv4Literal("017700000001")).toBe(0x7f000001);
    expect(parseIpv4Literal("0177.0.0.01")).toBe(0x7f000001);
    expect(parseIpv4Literal("10.1")).toBe(0x0a000001);
    expect(parseIpv4Literal("256.0.0.1")).toBeNull();
    expect(parseIpv4Literal("example.com")).toBeNull();
    expect(parseIpv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6("fe80::1%eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("1:2:3:4:5:6:7:8:9")).toBeNull();
  });
});

// Issue #44, item 8: every address that maps to a private, loopback or link-local IPv4 address, in every
// IPv6 form that carries one, and in every spelling the WHATWG URL parser turns into one (the guard
// judges url.hostname, the parser's reading).
describe("SSRF guard: the spellings of an internal address", () => {
  const INTERNAL_V4 = [
    "127.0.0.1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
  ];
  const groups = (v4: string) => {
    const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
    return [(a << 8) | b, (c << 8) | d];
  };
  const hex = (n: number) => n.toString(16);
  /** The IPv6 forms that embed an IPv4 address, each as a URL host. */
  const embeddings = (v4: string): [form: string, host: string][] => {
    const [hi, lo] = groups(v4) as [number, number];
    return [
      ["IPv4-mapped", `[::ffff:${v4}]`],
      ["IPv4-mapped", `[0:0:0:0:0:FFFF:${hex(hi)}:${hex(lo)}]`],
      ["IPv4-translated", `[::ffff:0:${v4}]`],
      ["IPv4-translated", `[0:0:0:0:ffff:0:${hex(hi)}:${hex(lo)}]`],
      ["IPv4-compatible", `[::${v4}]`],
      ["NAT64", `[64:ff9b::${v4}]`],
      ["NAT64", `[64:ff9b:1::${hex(hi)}:${hex(lo)}]`],
      ["6to4", `[2002:${hex(hi)}:${hex(lo)}::1]`],
      ["Teredo", `[2001:0:4136:e378:8000:63bf:${hex(~hi & 0xffff)}:${hex(~lo & 0xffff)}]`],
      ["Teredo", `[2001::${hex(hi)}:${hex(lo)}:0:0:0:1]`],
    ];
  };
  // (::0.0.0.0 is ::, refused as unspecified above)
  const cases = INTERNAL_V4.flatMap((v4) => embeddings(v4).map(([form, host]) => [v4, form, host] as const)).filter(
    ([, , host]) => host !== "[::0.0.0.0]",
  );

  it.each(cases)("refuses %s embedded as %s: %s", (v4, form, host) => {
    const reason = refused(`https://${host}/hook`);
    expect(reason).toContain("IPv4-embedded IPv6");
    expect(reason).toContain(form);
    // the message names what it embeds where the form carries the address at a fixed place
    if (!host.startsWith("[64:ff9b:1:")) expect(reason).toContain(v4);
    // also with the dev flag, which allows plain loopback only
    expect(refused(`http://${host}/hook`, true)).toContain("IPv4-embedded IPv6");
  });

  it("refuses those forms whatever they embed: write a public IPv4 address as such", () => {
    for (const [, host] of embeddings("93.184.216.34"))
      expect(refused(`https://${host}/`), host).toContain("IPv4-embedded IPv6");
    expect(checkOutboundUrl("https://93.184.216.34/")).toMatchObject({ ok: true });
  });

  it.each([
    ["https://2130706433/", "127.0.0.1"],
    ["https://0x7f000001/", "127.0.0.1"],
    ["https://0X7F.0.0.1/", "127.0.0.1"],
    ["https://0177.0.0.1/", "127.0.0.1"],
    ["https://017700000001/", "127.0.0.1"],
    ["https://127.1/", "127.0.0.1"],
    ["https://127.0.1/", "127.0.0.1"],
    ["https://127.0.0.1./", "127.0.0.1"],
    ["https://%31%32%37.0.0.1/", "127.0.0.1"],
    ["https://127\u30020\u30020\u30021/", "127.0.0.1"],
    ["https://\uff11\uff12\uff17.0.0.1/", "127.0.0.1"],
    ["https://0xA9FEA9FE/", "169.254.169.254"],
    ["https://169.254.43518/", "169.254.169.254"],
    ["https://0251.0376.0251.0376/", "169.254.169.254"],
    ["https://012.1/", "10.0.0.1"],
    ["https://3232235777/", "192.168.1.1"],
    ["https://[::FFFF:7F00:1]/", "[::ffff:7f00:1]"],
    ["https://[0000:0000:0000:0000:0000:ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
    ["https://[::ffff:0:127.0.0.1]/", "[::ffff:0:7f00:1]"],
    ["https://[0::1]/", "[::1]"],
    ["https://LOCALHOST./", "localhost."],
    ["https://localhost../", "localhost.."],
    ["https://Metadata.Google.Internal./", "metadata.google.internal."],
  ])("refuses %s, which the URL parser reads as %s", (url, host) => {
    expect(new URL(url).hostname).toBe(host);
    expect(refused(url)).not.toBeNull();
  });
});

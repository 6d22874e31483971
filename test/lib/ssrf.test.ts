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

import { describe, expect, it } from "vitest";
import { canonicalHostname } from "../../src/lib/host-guard";
import { hostnameOf, requestHostname } from "../../src/middleware/public-host";

// The custom-host guard reads the request's hostname from the URL string rather than building a URL
// object per request (docs/performance.md, Floor and hot paths, third look): it must read what
// `new URL(url).hostname` reads, for every shape of URL the runtime hands a Worker.
describe("hostnameOf", () => {
  const urls = [
    "http://127.0.0.1:8790/health",
    "https://api.example.com/v1/r/abc?redirect=1",
    "https://Reviews.Example.COM/f/tok",
    "https://reviews.example.com:8443/w/key/embed.js",
    "https://reviews.example.com?x=1",
    "https://reviews.example.com#frag",
    "https://reviews.example.com",
    "http://localhost:9100/l/slug",
    "http://[::1]:8790/health",
    "http://[2001:DB8::1]/f/x",
    "https://xn--bcher-kva.example/f/x",
    "https://a.b.c.example.com/v1/f/tok/thanks?x=a:b",
    "https://user:pa:ss@Reviews.Example.com:8443/f/x",
    "https://reviews.example.com/f/x?next=https://u@evil.example/",
    // a Host header crafted to look like another host: read as the URL parser reads it
    "https://victim.example@evil.example/f/x",
    "https://victim.example:443@evil.example/f/x",
    "https://evil.example#@victim.example/f/x",
    "https://evil.example?@victim.example/",
    "https://evil.example./f/x",
  ];
  it.each(urls)("reads %s as URL does", (url) => {
    expect(hostnameOf(url)).toBe(new URL(url).hostname.toLowerCase());
  });
});

// What the guard compares: the request's hostname as the WHATWG URL parser spells it (lower case,
// punycode, percent-decoding, IPv4 numbers), with trailing dots removed and the port ignored, so
// every spelling of a custom host is that host (docs/SECURITY.md, "Custom hosts serve only their
// owner's public resources"). The URLs below are raw strings, as a server may hand them to a Worker
// before any parser has seen them.
describe("requestHostname", () => {
  const spellings: [url: string, host: string][] = [
    ["https://reviews.tenant-a.test/f/x", "reviews.tenant-a.test"],
    ["https://reviews.tenant-a.test./f/x", "reviews.tenant-a.test"],
    ["https://reviews.tenant-a.test../f/x", "reviews.tenant-a.test"],
    ["https://Reviews.Tenant-A.TEST./f/x", "reviews.tenant-a.test"],
    ["https://reviews.tenant-a.test.:8443/f/x", "reviews.tenant-a.test"],
    ["https://reviews.tenant-a.test:443/f/x", "reviews.tenant-a.test"],
    ["https://reviews%2Etenant-a.test/f/x", "reviews.tenant-a.test"],
    ["https://reviews%2etenant-a%2etest%2e/f/x", "reviews.tenant-a.test"],
    ["https://reviews\uff0etenant-a\u3002test/f/x", "reviews.tenant-a.test"],
    ["https://\uff32eviews.tenant-a.test/f/x", "reviews.tenant-a.test"],
    ["https://bücher.tenant-a.test/f/x", "xn--bcher-kva.tenant-a.test"],
    ["https://BÜCHER.tenant-a.test./f/x", "xn--bcher-kva.tenant-a.test"],
    ["https://XN--BCHER-KVA.tenant-a.test/f/x", "xn--bcher-kva.tenant-a.test"],
    ["https://xn--bcher-kva.tenant-a.test:8443/f/x", "xn--bcher-kva.tenant-a.test"],
    ["https://user@reviews.tenant-a.test./f/x", "reviews.tenant-a.test"],
    ["http://127.0.0.1./health", "127.0.0.1"],
    ["http://0x7f.1:8787/health", "127.0.0.1"],
    ["http://[::1]:8787/health", "[::1]"],
    ["http://LOCALHOST:8787/health", "localhost"],
  ];
  it.each(spellings)("reads %s as %s", (url, host) => {
    expect(requestHostname(url)).toBe(host);
    // the rule itself: what the URL parser reads, trailing dots removed
    expect(requestHostname(url)).toBe(new URL(url).hostname.replace(/\.+$/, ""));
  });

  it("canonicalHostname is the identity on a canonical name and folds every other spelling onto it", () => {
    expect(canonicalHostname("reviews.tenant-a.test")).toBe("reviews.tenant-a.test");
    for (const h of [
      "Reviews.Tenant-A.test.",
      "reviews.tenant-a.test.",
      "REVIEWS.TENANT-A.TEST",
      "reviews%2Etenant-a.test",
    ])
      expect(canonicalHostname(h), h).toBe("reviews.tenant-a.test");
    expect(canonicalHostname("Bücher.Example.")).toBe("xn--bcher-kva.example");
    // not a host at all: left as it is (it can equal no stored hostname)
    expect(canonicalHostname("a b.test")).toBe("a b.test");
  });
});

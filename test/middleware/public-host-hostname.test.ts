import { describe, expect, it } from "vitest";
import { hostnameOf } from "../../src/middleware/public-host";

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

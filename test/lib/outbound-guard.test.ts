import { describe, expect, it } from "vitest";
import { guardedFetch, guardedObject, OutboundUrlRefused, withOutboundGuard } from "../../src/lib/outbound-guard";

// The fetch wrapper a library runs behind (src/lib/outbound-guard.ts): every URL and redirect hop
// passes src/lib/ssrf.ts; the library's requests go out with redirect: "manual".

/** A network stand-in: answers from a table of url -> response, records what was asked and how. */
function network(routes: Record<string, () => Response>) {
  const calls: { url: string; method: string; redirect: string }[] = [];
  const send = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    calls.push({ url: req.url, method: req.method, redirect: req.redirect });
    return routes[req.url]?.() ?? new Response("missing", { status: 404 });
  }) as typeof fetch;
  return { send, calls };
}
const redirect = (status: number, location: string) => () => new Response(null, { status, headers: { location } });

describe("guardedFetch", () => {
  it("refuses an internal URL before any request", async () => {
    const net = network({});
    await expect(guardedFetch(net.send, "https://169.254.169.254/latest/meta-data", undefined)).rejects.toBeInstanceOf(
      OutboundUrlRefused,
    );
    expect(net.calls).toEqual([]);
  });

  it("follows public redirects itself (each hop manual), and refuses a hop that points inward without requesting it", async () => {
    const net = network({
      "https://a.example/doc": redirect(302, "https://b.example/doc"),
      "https://b.example/doc": redirect(307, "http://127.0.0.1:8787/admin"),
      "https://c.example/doc": redirect(301, "/final"),
      "https://c.example/final": () => new Response("ok"),
    });
    await expect(guardedFetch(net.send, "https://a.example/doc", undefined)).rejects.toThrow(
      "only https URLs are allowed",
    );
    expect(net.calls.map((c) => [c.url, c.redirect])).toEqual([
      ["https://a.example/doc", "manual"],
      ["https://b.example/doc", "manual"],
    ]);
    const ok = await guardedFetch(net.send, "https://c.example/doc", undefined);
    expect(await ok.text()).toBe("ok");
  });

  it("stops after 3 redirects; a caller's redirect: manual gets the 3xx itself; 303 turns a POST into a GET", async () => {
    const net = network({
      "https://loop.example/0": redirect(302, "https://loop.example/1"),
      "https://loop.example/1": redirect(302, "https://loop.example/2"),
      "https://loop.example/2": redirect(302, "https://loop.example/3"),
      "https://loop.example/3": redirect(302, "https://loop.example/4"),
      "https://post.example/form": redirect(303, "https://post.example/done"),
      "https://post.example/done": () => new Response("done"),
    });
    await expect(guardedFetch(net.send, "https://loop.example/0", undefined)).rejects.toThrow("more than 3 redirects");
    expect(net.calls).toHaveLength(4);
    expect((await guardedFetch(net.send, "https://loop.example/0", { redirect: "manual" })).status).toBe(302);
    await guardedFetch(net.send, "https://post.example/form", { method: "POST", body: "x=1" });
    expect(net.calls.slice(-2).map((c) => c.method)).toEqual(["POST", "GET"]);
  });
});

describe("withOutboundGuard / guardedObject", () => {
  it("guard the global fetch inside the scope only, and for whatever a wrapped object's methods start", async () => {
    const realFetch = globalThis.fetch;
    const net = network({ "https://public.example/x": () => new Response("public") });
    globalThis.fetch = net.send;
    try {
      // inside: refused; outside: the global fetch as it was (a stand-in here, so nothing leaves)
      await expect(withOutboundGuard(() => fetch("https://10.0.0.5/x"))).rejects.toBeInstanceOf(OutboundUrlRefused);
      expect((await fetch("https://10.0.0.5/x")).status).toBe(404);
      const lib = guardedObject({
        later: async (url: string) => {
          await new Promise((r) => setTimeout(r, 1));
          return (await fetch(url)).text();
        },
        helpers: () => ({ get: (url: string) => fetch(url) }),
      });
      expect(await lib.later("https://public.example/x")).toBe("public");
      await expect(lib.later("https://[::1]/x")).rejects.toBeInstanceOf(OutboundUrlRefused);
      await expect(lib.helpers().get("https://metadata.google.internal/")).rejects.toBeInstanceOf(OutboundUrlRefused);
      expect(net.calls.map((c) => c.url)).toEqual(["https://10.0.0.5/x", "https://public.example/x"]);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});

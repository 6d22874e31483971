import { AsyncLocalStorage } from "node:async_hooks";
import { checkOutboundUrl, type OutboundUrlOptions } from "./ssrf";

/**
 * Outbound requests of code we do not control (a library that calls the global fetch with URLs an
 * outsider chose, such as @cloudflare/workers-oauth-provider fetching a Client ID Metadata Document
 * and its jwks_uri) pass the SSRF guard of lib/ssrf.ts, every redirect hop included. Code run inside
 * withOutboundGuard sees a global fetch that checks the URL, sends with redirect: "manual", and
 * follows at most MAX_REDIRECTS redirects itself, checking each Location before it is requested.
 * Outside such a scope the global fetch is the runtime's, unchanged (AsyncLocalStorage tells them apart).
 */
const MAX_REDIRECTS = 3;

const scope = new AsyncLocalStorage<OutboundUrlOptions>();
let base: typeof fetch | undefined;

export class OutboundUrlRefused extends TypeError {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`outbound request refused (${reason}): ${url}`);
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** fetch through the SSRF guard: each URL checked, redirects followed here (and checked) rather than by the runtime. */
export async function guardedFetch(
  send: typeof fetch,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  opts: OutboundUrlOptions = {},
): Promise<Response> {
  let request = new Request(input, init);
  const follow = (init?.redirect ?? (input instanceof Request ? input.redirect : "follow")) === "follow";
  for (let hop = 0; ; hop++) {
    const check = checkOutboundUrl(request.url, opts);
    if (!check.ok) throw new OutboundUrlRefused(request.url, check.reason);
    const response = await send(new Request(request, { redirect: "manual" }));
    const location = response.headers.get("location");
    if (!follow || !REDIRECT_STATUSES.has(response.status) || location === null) return response;
    if (hop >= MAX_REDIRECTS) throw new OutboundUrlRefused(request.url, `more than ${MAX_REDIRECTS} redirects`);
    await response.body?.cancel();
    const next = new URL(location, request.url).href;
    // 303, and 301/302 after a POST, become a GET without a body (the fetch standard's rule)
    const asGet =
      response.status === 303 || ((response.status === 301 || response.status === 302) && request.method === "POST");
    request = asGet
      ? new Request(next, { method: "GET", headers: request.headers, signal: request.signal })
      : new Request(next, request);
  }
}

/** The global fetch while any scope is active: guarded inside withOutboundGuard, the runtime's outside. */
const scopedFetch: typeof fetch = (input, init) => {
  const opts = scope.getStore();
  return opts ? guardedFetch(base!, input, init, opts) : base!(input, init);
};

/**
 * Runs `work` (and everything it starts) with the global fetch guarded. The wrapper is put in place
 * on first use, and again if something replaced the global fetch since (a test's stand-in becomes
 * the base it sends through).
 */
export function withOutboundGuard<T>(work: () => T, opts: OutboundUrlOptions = {}): T {
  if (globalThis.fetch !== scopedFetch) {
    base = globalThis.fetch;
    globalThis.fetch = scopedFetch;
  }
  return scope.run(opts, work);
}

/**
 * The object with every method (and every object a method returns synchronously, such as a helpers
 * object) running inside withOutboundGuard. Methods are called on the real object, so class-private
 * fields keep working.
 */
export function guardedObject<T extends object>(target: T, opts: OutboundUrlOptions = {}): T {
  return new Proxy(target, {
    get(obj, key) {
      const value = Reflect.get(obj, key, obj) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = withOutboundGuard(() => (value as (...a: unknown[]) => unknown).apply(obj, args), opts);
        const plainObject =
          typeof result === "object" &&
          result !== null &&
          !(result instanceof Promise) &&
          !(result instanceof Response);
        return plainObject ? guardedObject(result, opts) : result;
      };
    },
  });
}

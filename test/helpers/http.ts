import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import handler from "../../src/index";
import { responseMismatch } from "./openapi";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  tenantId?: string;
  headers?: Record<string, string>;
  /** a JSON body (object) or a raw string/FormData sent as is */
  body?: unknown;
  /** skip the check of the response against the OpenAPI document (only for deliberately broken setups) */
  unchecked?: boolean;
  /** the scheme and host the request is sent to (a custom hostname); the platform's by default */
  base?: string;
}

const BASE = "http://localhost:8787";
const worker = (exports as unknown as { default: Fetcher }).default;

/**
 * "exports": through the Worker's own service binding (the default). "direct": the same fetch
 * handler called in-process with a fresh ExecutionContext; the binding's per-request cost grows
 * with every request made in a file (~0.5 ms at first, ~500 ms after 1,000), so files that send
 * thousands of requests (test/cross-cutting) switch to direct.
 */
let transport: "exports" | "direct" = "exports";
export const useTransport = (t: typeof transport) => {
  transport = t;
};
const dispatch = (req: Request) =>
  transport === "direct" ? handler.fetch(req as never, env as never, createExecutionContext()) : worker.fetch(req);

/** One request through the Worker's real fetch handler (middleware, routing, D1, everything). */
export async function request<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.tenantId) headers["x-tenant-id"] = o.tenantId;
  let body: BodyInit | undefined;
  if (o.body instanceof FormData || typeof o.body === "string") {
    body = o.body;
  } else if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await dispatch(new Request((o.base ?? BASE) + path, { method, headers, body, redirect: "manual" }));
  const text = await res.text();
  let parsed: unknown = text;
  // JSON and +json bodies are parsed; JSON Lines (application/x-ndjson, the tenant export) stay text
  if (/(^|\/|\+)json\b/.test(res.headers.get("content-type") ?? "")) parsed = text ? JSON.parse(text) : null;
  // every response of a documented route must match the document (status and body schema)
  const mismatch = o.unchecked
    ? null
    : responseMismatch(method, new URL(BASE + path).pathname, res.status, res.headers.get("content-type"), parsed);
  if (mismatch) throw new Error(`OpenAPI response mismatch: ${mismatch}`);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** A client bound to a credential and (optionally) a tenant. */
export function client(token?: string, tenantId?: string) {
  const send = (method: string) => (path: string, body?: unknown, headers?: Record<string, string>) =>
    request(method, path, { token, tenantId, body, headers });
  return {
    token,
    tenantId,
    get: (path: string, headers?: Record<string, string>) => request("GET", path, { token, tenantId, headers }),
    post: send("POST"),
    put: send("PUT"),
    patch: send("PATCH"),
    delete: send("DELETE"),
    /** the same credential against another tenant */
    forTenant: (otherTenantId: string) => client(token, otherTenantId),
  };
}

export type Client = ReturnType<typeof client>;

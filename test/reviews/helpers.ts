import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { controlDb, shardDb } from "../../src/db/shards";
import type { ServiceContext } from "../../src/lib/context";
import type { World } from "../helpers/seed";

/** A location in tenant A (or B with tenantBAdmin), created through the API. */
export async function newLocation(
  w: World,
  as: "manager" | "tenantBAdmin" = "manager",
  extra: Record<string, unknown> = {},
) {
  const res = await w
    .as(as === "manager" ? "manager" : "tenantBAdmin")
    .post("/v1/locations", { name: `Loc ${Math.random().toString(36).slice(2, 7)}`, ...extra });
  expect(res.status).toBe(201);
  return res.body as { id: string; brandId: string };
}

export async function ingest(w: World, body: Record<string, unknown>, as: Parameters<World["as"]>[0] = "tenantUser") {
  const res = await w.as(as).post("/v1/reviews/ingest", body);
  expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
  return res.body as { id: string; [k: string]: any };
}

/** The service context a REST call by this user on tenant A would get, for calling services directly (with stand-in fetch). */
export function ctxFor(tenantId: string, userId: string): ServiceContext {
  return {
    db: shardDb(env, 0),
    control: controlDb(env),
    env,
    tenantId,
    actor: { type: "user", userId, via: "tenant" },
    meta: { ip: null, userAgent: null, requestId: null },
    defer: () => undefined,
  };
}

export interface Call {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

/** A stand-in for a site's API: records every call and answers with the handler's Response. */
export function standIn(handler: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const text = await req.text();
    const call: Call = {
      method: req.method,
      url: new URL(req.url),
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    calls.push(call);
    return handler(call);
  }) as typeof fetch;
  return { fetch: fetchFn, calls };
}

export const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

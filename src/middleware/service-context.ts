import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import type { Actor, PlatformContext, RequestMeta, ServiceContext } from "../lib/context";
import { isPlatformAdmin } from "../modules/identity/access";
import { type AgencyScope, agencyScopeOf } from "../modules/tenants/scope";

export const requestMeta = (c: Context<AppEnv>): RequestMeta => ({
  ip: c.req.header("cf-connecting-ip") ?? c.req.header("x-real-ip") ?? null,
  userAgent: c.req.header("user-agent") ?? null,
  requestId: c.get("requestId") ?? null,
});

export function actorOf(c: Context<AppEnv>): Actor {
  const p = c.var.principal;
  if (p.kind === "api_key") return { type: "api_key", keyId: p.keyId };
  const via = c.var.access?.via;
  return { type: "user", userId: p.userId, via: via === "platform" || via === "agency" ? via : "tenant" };
}

/** The tenant-scoped service context of a /v1 request: tenant from the verified access, never the body. */
export const svc = (c: Context<AppEnv>): ServiceContext => ({
  db: c.var.db,
  control: c.var.control,
  env: c.env,
  tenantId: c.var.access.tenantId,
  actor: actorOf(c),
  meta: requestMeta(c),
  defer: (work) => c.executionCtx.waitUntil(work),
});

export const platformSvc = (c: Context<AppEnv>): PlatformContext => {
  const p = c.var.principal;
  const actor: Actor =
    p.kind === "user"
      ? { type: "user", userId: p.userId, via: isPlatformAdmin(p) ? "platform" : "agency" }
      : { type: "api_key", keyId: p.keyId };
  return {
    db: c.var.control,
    control: c.var.control,
    env: c.env,
    actor,
    meta: requestMeta(c),
    defer: (work) => c.executionCtx.waitUntil(work),
  };
};

/** The agencies an /agency request acts for: every one for a platform admin, else those the user administers. */
export const agencyScope = (c: Context<AppEnv>): AgencyScope => agencyScopeOf(c.var.principal);

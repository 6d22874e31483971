import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { unauthenticated } from "../../lib/errors";
import { createRouter, json, jsonBody, stdErrors, USER_SECURITY } from "../../lib/openapi";
import { resolveTenantAccess } from "../identity/access";
import { findTenantRef } from "../identity/service";
import { LoginBody, LoginResponse, MeResponse, toUser } from "./schemas";
import { login } from "./service";

const loginRoute = createRoute({
  method: "post",
  path: "/auth/login",
  tags: ["Auth"],
  summary: "Exchange email and password for a session JWT (8 hours)",
  request: { body: jsonBody(LoginBody) },
  responses: { 200: json(LoginResponse), 400: stdErrors[400], 401: stdErrors[401] },
});

const meRoute = createRoute({
  method: "get",
  path: "/me",
  tags: ["Auth"],
  summary: "The caller's profile and role assignments",
  security: USER_SECURITY,
  request: { headers: z.object({ "x-tenant-id": z.string().optional() }) },
  responses: { 200: json(MeResponse), 401: stdErrors[401] },
});

export const authRoutes = createRouter()
  .openapi(loginRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    return c.json(await login(c.var.db, c.env, email, password), 200);
  })
  .openapi(meRoute, async (c) => {
    const p = c.var.principal;
    if (p.kind !== "user") throw unauthenticated("A user credential is required");
    const tenantId = c.req.valid("header")["x-tenant-id"]?.trim();
    const [user, tenant] = await Promise.all([
      c.var.db.select().from(users).where(eq(users.id, p.userId)).get(),
      tenantId ? findTenantRef(c.var.db, tenantId) : null,
    ]);
    if (!user) throw unauthenticated();
    const access = tenant ? resolveTenantAccess(p, tenant) : null;
    return c.json(
      {
        ...toUser(user),
        roles: p.roles.map((r) => ({ role: r.role, scope: r.scopeType, scopeId: r.scopeId || null })),
        tenantAccess: access ? { tenantId: access.tenantId, via: access.via, role: access.role } : null,
      },
      200,
    );
  });

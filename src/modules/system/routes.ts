import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../app-env";
import { safeEqual } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { createRouter, errors, json, jsonBody, type Router, stdErrors } from "../../lib/openapi";
import { isLocalEnvironment } from "../../lib/ssrf";
import { Email, Password, Slug } from "../../lib/validators";
import { requestMeta } from "../../middleware/service-context";
import { SessionUserSchema } from "../auth/schemas";
import { TenantSchema } from "../tenants/schemas";
import { bootstrap } from "./bootstrap.service";

const health = createRoute({
  method: "get",
  path: "/health",
  operationId: "checkHealth",
  security: [],
  tags: ["System"],
  summary: "Liveness probe",
  responses: { 200: json(z.object({ status: z.string() }).openapi("Health")) },
});

const BootstrapBody = z
  .object({
    tenantName: z.string().trim().min(1).max(200),
    tenantSlug: Slug,
    adminEmail: Email,
    adminPassword: Password,
    adminName: z.string().trim().min(1).max(200),
  })
  .openapi("BootstrapRequest");

/**
 * Checked before the body is even parsed: without the secret, nothing else is revealed. With no
 * BOOTSTRAP_SECRET configured, bootstrap is open only where ENVIRONMENT names a local environment
 * (`isLocalEnvironment`: wrangler dev, the test pool); anywhere else (staging, production, a typo) it
 * is refused, so a deployment whose secret was never set cannot be claimed by whoever calls first.
 */
const bootstrapSecret = createMiddleware<AppEnv>(async (c, next) => {
  const expected = c.env.BOOTSTRAP_SECRET;
  if (!expected && !isLocalEnvironment(c.env))
    throw new ApiError(
      "FORBIDDEN",
      "Bootstrap is closed: no BOOTSTRAP_SECRET is set. Set the BOOTSTRAP_SECRET secret (npm run setup:cloudflare generates one) and send it as x-bootstrap-secret",
    );
  if (expected && !safeEqual(c.req.header("x-bootstrap-secret") ?? "", expected)) {
    throw new ApiError("UNAUTHENTICATED", "Bootstrap secret required");
  }
  await next();
});

const bootstrapRoute = createRoute({
  method: "post",
  path: "/bootstrap",
  operationId: "bootstrap",
  security: [],
  tags: ["System"],
  summary: "One-time creation of the first tenant and platform admin",
  description:
    "Creates the first tenant in the built-in `house` agency with a default brand, and a user with the roles platform_admin and tenant_admin. A second call is 409. When the BOOTSTRAP_SECRET secret is set, the x-bootstrap-secret header must match it (else 401). " +
    "Without BOOTSTRAP_SECRET it is open only in a local environment (ENVIRONMENT development or test) and 403 anywhere else.",
  middleware: [bootstrapSecret] as const,
  request: {
    headers: z.object({ "x-bootstrap-secret": z.string().optional() }),
    body: jsonBody(BootstrapBody),
  },
  responses: {
    201: json(
      z.object({ tenant: TenantSchema, user: SessionUserSchema, token: z.string() }).openapi("BootstrapResponse"),
      "Bootstrapped",
    ),
    400: stdErrors[400],
    401: stdErrors[401],
    403: errors[403],
    409: errors[409],
  },
});

export const systemRoutes: Router = createRouter()
  .openapi(health, (c) => c.json({ status: "ok" }, 200))
  .openapi(bootstrapRoute, async (c) => {
    const result = await bootstrap(c.var.control, c.env, requestMeta(c), c.req.valid("json"));
    return c.json(result, 201);
  });

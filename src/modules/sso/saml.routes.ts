import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { createRouter, errors, type Router } from "../../lib/openapi";
import { requestMeta } from "../../middleware/service-context";
import { completeSignIn, type PublicContext, serviceProviderMetadata, startSignIn } from "./login.service";

const tags = ["SSO"];
const SlugParam = z.object({ tenantSlug: z.string().min(1).max(63).openapi({ example: "acme-dental" }) });
const NO_STORE = { "cache-control": "no-store", "referrer-policy": "no-referrer" };

const redirect = (description: string) => ({
  description,
  headers: z.object({ location: z.string().openapi({ format: "uri" }) }),
});

const publicCtx = (c: Context<AppEnv>): PublicContext => ({
  control: c.var.control,
  env: c.env,
  meta: requestMeta(c),
  defer: (work) => c.executionCtx.waitUntil(work),
});

const metadata = createRoute({
  method: "get",
  path: "/auth/saml/{tenantSlug}/metadata",
  tags,
  summary: "SAML service-provider metadata",
  operationId: "getSamlMetadata",
  security: [],
  description:
    "Entity id, ACS URL (HTTP-POST), NameID format emailAddress, WantAssertionsSigned. Served for every tenant, before SSO is configured or enabled (the IdP application is created from it first); 404 only for an unknown slug.",
  request: { params: SlugParam },
  responses: {
    200: { description: "SAML 2.0 metadata", content: { "application/xml": { schema: z.string() } } },
    400: errors[400],
    404: errors[404],
  },
});

const init = createRoute({
  method: "get",
  path: "/auth/saml/{tenantSlug}/init",
  tags,
  summary: "Start SAML sign-in",
  operationId: "startSamlLogin",
  security: [],
  description:
    "302 to the IdP with an AuthnRequest (HTTP-Redirect binding); RelayState carries the request id, which is remembered for 15 minutes and answered at most once.",
  request: { params: SlugParam },
  responses: { 302: redirect("To the IdP's SSO URL"), 400: errors[400], 404: errors[404] },
});

const CallbackForm = z
  .object({
    SAMLResponse: z.string().min(1).max(1_000_000).openapi({ description: "base64 samlp:Response" }),
    RelayState: z.string().max(1024).optional(),
  })
  .openapi("SamlCallbackForm");

const callback = createRoute({
  method: "post",
  path: "/auth/saml/{tenantSlug}/callback",
  tags,
  summary: "SAML assertion consumer service (HTTP-POST)",
  operationId: "completeSamlLogin",
  security: [],
  description:
    "Validates the response (signature by this tenant's certificates only, issuer, audience, Recipient/Destination, validity window with 2 minutes of skew, InResponseTo of a pending request, replay) " +
    "and 302s to the built-in console's /sso/complete with `?code=` (a single-use code valid for 60 seconds, which the console " +
    "exchanges for its session), or to FRONTEND_URL with `?token=<session JWT>` when a deployment points it at its own frontend. " +
    "Any invalid response is 401 with `details.reason`.",
  request: {
    params: SlugParam,
    body: { required: true, content: { "application/x-www-form-urlencoded": { schema: CallbackForm } } },
  },
  responses: {
    302: redirect("To the console with ?code=, or to FRONTEND_URL with ?token="),
    400: errors[400],
    401: errors[401],
    404: errors[404],
  },
});

export const samlRoutes: Router = createRouter()
  .openapi(metadata, async (c) =>
    c.body(await serviceProviderMetadata(publicCtx(c), c.req.valid("param").tenantSlug), 200, {
      "content-type": "application/xml; charset=utf-8",
    }),
  )
  .openapi(init, async (c) => {
    const url = await startSignIn(publicCtx(c), c.req.valid("param").tenantSlug);
    c.header("cache-control", "no-store");
    return c.redirect(url, 302);
  })
  .openapi(callback, async (c) => {
    const url = await completeSignIn(publicCtx(c), c.req.valid("param").tenantSlug, c.req.valid("form"));
    for (const [k, v] of Object.entries(NO_STORE)) c.header(k, v);
    return c.redirect(url, 302);
  });

import { swaggerUI } from "@hono/swagger-ui";
import { API_TAGS } from "./api-tags";
import { onError, onNotFound } from "./lib/error-handler";
import { createRouter, documentTenantMoving } from "./lib/openapi";
import type { Operation } from "./lib/operation";
import { restRoutes } from "./lib/operation-route";
import { baseUrl } from "./lib/urls";
import { authenticate, registerAuthenticator } from "./middleware/auth";
import { documentJsonBodyLimit } from "./middleware/body-limit";
import { controlSession } from "./middleware/control-session";
import { requestGuards } from "./middleware/request-guards";
import { requestId } from "./middleware/request-id";
import { requireAgencyScope, requirePlatformAdmin, tenantContext } from "./middleware/tenant";
import { alertUnsubscribeRoutes } from "./modules/alerts/unsubscribe.routes";
import { apiKeyAuthenticator } from "./modules/api-keys/authenticator";
import { authRoutes } from "./modules/auth/routes";
import { consoleRoutes } from "./modules/console/routes";
import { feedbackPageRoutes } from "./modules/feedback/page.routes";
import { publicFeedbackRoutes } from "./modules/feedback/routes";
import { linkRoutes } from "./modules/links/routes";
import { unsubscribeRoutes } from "./modules/links/unsubscribe.routes";
import { mcpRoutes } from "./modules/mcp/routes";
import { connectedAppsRoutes } from "./modules/oauth/connected-apps.routes";
import { oauthRoutes } from "./modules/oauth/routes";
import { publicReviewLinkRoutes } from "./modules/review-links/public.routes";
import { reviewSiteCallbackRoutes } from "./modules/reviews/site-callbacks.routes";
import { providerCallbackRoutes } from "./modules/solicitations/provider-callbacks.routes";
import { samlRoutes } from "./modules/sso/saml.routes";
import { systemRoutes } from "./modules/system/routes";
import { brandLogoRoutes } from "./modules/white-label/logo.routes";
import { publicWidgetRoutes } from "./modules/widgets/public.routes";
import { documentProtocolEndpoints } from "./protocol-docs";
import { OPERATIONS } from "./wiring";

export const API_INFO = {
  title: "Reputation Operations API",
  version: "2.0.0",
  description:
    "Multi-tenant reputation operations: review requests, reviews and responses, inbox, feedback, agency and MCP. " +
    "Every /v1 route needs `Authorization: Bearer <JWT or API key>` and `x-tenant-id`. Errors are ErrorResponse " +
    "{error, code, details?}; list routes are keyset-paged with an opaque cursor.",
};

/**
 * The document's top-level config: `servers` is this deployment's absolute base URL (PUBLIC_BASE_URL),
 * which SDK generators take as the client's default base URL; a relative "/" would only resolve
 * against a document fetched over HTTP, not one saved to a file (docs/api-lint.md). The description
 * names the environment (ENVIRONMENT) and x-internal says the API is public (OWASP API9 inventory).
 */
export const openApiConfig = (serverUrl: string, environment: string) => ({
  openapi: "3.1.0",
  info: API_INFO,
  servers: [{ url: serverUrl, description: serverDescription(environment), "x-internal": false }],
  tags: API_TAGS.map((t) => ({ ...t })),
});

/** "development" is `wrangler dev` on a laptop: called local, a term inventory tools recognise */
export const serverDescription = (environment: string) =>
  `The ${environment === "development" ? "local development" : environment} deployment (PUBLIC_BASE_URL)`;

/**
 * The Worker's HTTP app. `operations` is the catalogue (src/wiring.ts OPERATIONS, what createWorker hands
 * it): their REST routes are derived here; the routers mounted below are the routes not yet in it and
 * the exempt ones (protocol endpoints, pages, inbound webhooks: docs/ARCHITECTURE.md).
 */
export function createApp(operations: readonly Operation[] = OPERATIONS) {
  registerAuthenticator(apiKeyAuthenticator);
  const app = createRouter();
  // every request: its id, log scope and baseline response headers (outer), then the control
  // database, the JSON body cap and which owner a custom host serves (inner): two layers, not five
  // (middleware/request-guards.ts, docs/performance.md Hot paths)
  app.use("*", requestId, requestGuards);
  // public routes authorised by a signed token (some under /v1): mounted before the /v1 auth
  // middleware, so their handlers answer first and end the chain
  app.route("/", publicFeedbackRoutes);
  app.route("/", feedbackPageRoutes);
  app.route("/", linkRoutes);
  app.route("/", unsubscribeRoutes);
  app.route("/", publicReviewLinkRoutes);
  app.route("/", publicWidgetRoutes);
  app.route("/", alertUnsubscribeRoutes);
  app.route("/", brandLogoRoutes);

  // the control database through a D1 session, the tenant's shard through another (docs/scaling.md)
  // hono's "/me/*" also matches "/me" itself: one registration for /me and the signed-in user's own
  // resources (/me/oauth-grants), user-level, no tenant header (two would open two control sessions)
  app.use("/me/*", controlSession, authenticate);
  // /auth (login, invites, resets, SAML) needs no principal; the session hands the client the bookmark
  // of its account's creation or change, so its next /me or /v1 read sees it on any replica
  app.use("/auth/*", controlSession);
  app.use("/v1/*", controlSession, authenticate, tenantContext);
  app.use("/admin/*", controlSession, authenticate, requirePlatformAdmin);
  app.use("/agency/*", controlSession, authenticate, requireAgencyScope);

  // the catalogue's REST doors (literal paths before templated ones; test/app/routes.test.ts: none shadows another route)
  app.route("/", restRoutes(operations));
  app.route("/", systemRoutes);
  app.route("/", authRoutes);
  app.route("/", samlRoutes);
  app.route("/", mcpRoutes);
  app.route("/", oauthRoutes);
  app.route("/", connectedAppsRoutes);
  app.route("/", providerCallbackRoutes);
  app.route("/", reviewSiteCallbackRoutes);
  // the web console's HTML pages (not in the OpenAPI document: each calls the services its REST twins call)
  app.route("/", consoleRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A session JWT from /auth/login, or an API key",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "tenantHeader", {
    type: "apiKey",
    in: "header",
    name: "x-tenant-id",
    description: "The tenant every /v1 route acts on",
  });
  documentJsonBodyLimit(app.openAPIRegistry);
  documentTenantMoving(app.openAPIRegistry);
  documentProtocolEndpoints(app.openAPIRegistry);
  app.doc31("/docs/openapi.json", (c) => openApiConfig(baseUrl(c.env), c.env.ENVIRONMENT));
  app.get("/docs", swaggerUI({ url: "/docs/openapi.json" }));

  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}

export type App = ReturnType<typeof createApp>;

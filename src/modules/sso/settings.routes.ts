import { createRoute } from "@hono/zod-openapi";
import { createRouter, json, jsonBody, type Router, stdErrors, TENANT_SECURITY } from "../../lib/openapi";
import { svc } from "../../middleware/service-context";
import { canAdminister } from "../../middleware/tenant";
import { ImportSsoMetadataBody, SsoConfigSchema, UpdateSsoConfigBody } from "./schemas";
import { getSsoSettings, importSsoMetadata, updateSsoSettings } from "./settings.service";

const tags = ["SSO"];

const get = createRoute({
  method: "get",
  path: "/v1/settings/sso",
  tags,
  security: TENANT_SECURITY,
  summary: "The tenant's SAML SSO configuration (tenant_admin)",
  operationId: "getSsoSettings",
  description:
    "Before the first PUT this shows the defaults (disabled, entryPoint null) and the service-provider values to enter at the IdP. Certificates are shown as fingerprints, subjects and validity only.",
  middleware: [canAdminister] as const,
  responses: { 200: json(SsoConfigSchema), ...stdErrors },
});

const put = createRoute({
  method: "put",
  path: "/v1/settings/sso",
  tags,
  security: TENANT_SECURITY,
  summary: "Create or change the SAML SSO configuration (tenant_admin)",
  operationId: "updateSsoSettings",
  description:
    "Fields left out keep their value. `idpCertificates` (PEM, 1-2, RSA >= 2048 bits, not expired) replaces the stored set; send two during a rotation. " +
    "Enabling needs entryPoint, idpEntityId and a certificate. Audited as sso.updated.",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(UpdateSsoConfigBody) },
  responses: { 200: json(SsoConfigSchema), ...stdErrors },
});

const importMetadata = createRoute({
  method: "post",
  path: "/v1/settings/sso/metadata",
  tags,
  security: TENANT_SECURITY,
  summary: "Import the IdP's SAML metadata (tenant_admin)",
  operationId: "importSsoMetadata",
  description:
    "Sets idpEntityId, entryPoint (the HTTP-Redirect SingleSignOnService) and the signing certificates from the metadata; other settings, including enabled, stay. Audited as sso.metadata_imported.",
  middleware: [canAdminister] as const,
  request: { body: jsonBody(ImportSsoMetadataBody) },
  responses: { 200: json(SsoConfigSchema), ...stdErrors },
});

export const ssoSettingsRoutes: Router = createRouter()
  .openapi(get, async (c) => c.json(await getSsoSettings(svc(c)), 200))
  .openapi(put, async (c) => c.json(await updateSsoSettings(svc(c), c.req.valid("json")), 200))
  .openapi(importMetadata, async (c) => c.json(await importSsoMetadata(svc(c), c.req.valid("json").metadataXml), 200));

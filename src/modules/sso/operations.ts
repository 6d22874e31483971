import { stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { ImportSsoMetadataBody, SsoConfigSchema, UpdateSsoConfigBody } from "./schemas";
import { getSsoSettings, importSsoMetadata, updateSsoSettings } from "./settings.service";

// The tenant's SAML SSO settings in the catalogue (src/lib/operation.ts): tenant_admin only, and closed to
// API keys (settings are: identity/scopes.ts). The public /auth/saml routes stay saml.routes.ts (exempt doors).

const tags = ["SSO"];

export const getSsoSettingsOperation = defineOperation({
  name: "sso-settings.get",
  operationId: "getSsoSettings",
  method: "get",
  path: "/v1/settings/sso",
  tags,
  summary: "The tenant's SAML SSO configuration (tenant_admin)",
  description:
    "Before the first PUT this shows the defaults (disabled, entryPoint null) and the service-provider values to enter at the IdP. Certificates are shown as fingerprints, subjects and validity only.",
  output: SsoConfigSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "read",
  console: {},
  handler: (ctx) => getSsoSettings(ctx),
});

export const updateSsoSettingsOperation = defineOperation({
  name: "sso-settings.update",
  operationId: "updateSsoSettings",
  method: "put",
  path: "/v1/settings/sso",
  tags,
  summary: "Create or change the SAML SSO configuration (tenant_admin)",
  description:
    "Fields left out keep their value. `idpCertificates` (PEM, 1-2, RSA >= 2048 bits, not expired) replaces the stored set; send two during a rotation. " +
    "Enabling needs entryPoint, idpEntityId and a certificate. Audited as sso.updated.",
  request: { body: UpdateSsoConfigBody },
  output: SsoConfigSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  idempotent: true,
  console: {},
  handler: (ctx, input) => updateSsoSettings(ctx, input),
});

export const importSsoMetadataOperation = defineOperation({
  name: "sso-settings.import-metadata",
  operationId: "importSsoMetadata",
  method: "post",
  path: "/v1/settings/sso/metadata",
  tags,
  summary: "Import the IdP's SAML metadata (tenant_admin)",
  description:
    "Sets idpEntityId, entryPoint (the HTTP-Redirect SingleSignOnService) and the signing certificates from the metadata; other settings, including enabled, stay. Audited as sso.metadata_imported.",
  request: { body: ImportSsoMetadataBody },
  output: SsoConfigSchema,
  errors: stdErrors,
  scopes: [],
  minRole: "tenant_admin",
  access: "write",
  console: {},
  handler: (ctx, input) => importSsoMetadata(ctx, input.metadataXml),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [
  getSsoSettingsOperation,
  updateSsoSettingsOperation,
  importSsoMetadataOperation,
];

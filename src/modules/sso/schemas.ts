import { z } from "@hono/zod-openapi";
import { SAML_SIGNATURE_ALGORITHMS, type ssoConfigs, TENANT_ROLES } from "../../db/schema";
import { DateTime } from "../../lib/openapi";
import { HttpUrl } from "../../lib/validators";
import { describeCertificate, MAX_PEM_CHARS, parseIdpCertificate } from "./certificates";
import type { ServiceProviderUrls } from "./urls";

const AttributeName = z.string().trim().min(1).max(256);

export const AttributeMappingSchema = z
  .strictObject({
    email: AttributeName.optional().openapi({
      description: "attribute holding the email; default: the NameID",
      example: "email",
    }),
    name: AttributeName.optional().openapi({
      description: "attribute holding the display name",
      example: "displayName",
    }),
    firstName: AttributeName.optional().openapi({ example: "firstName" }),
    lastName: AttributeName.optional().openapi({ example: "lastName" }),
    role: AttributeName.optional().openapi({
      description: "attribute whose values roleValues maps to a tenant role (JIT only)",
      example: "groups",
    }),
    roleValues: z
      .record(z.string().min(1).max(256), z.enum(TENANT_ROLES))
      .refine((m) => Object.keys(m).length <= 50, "At most 50 role values")
      .optional()
      .openapi({ example: { "Reputation Admins": "tenant_admin", "Reputation Managers": "manager" } }),
  })
  .openapi("SsoAttributeMapping");
export type AttributeMapping = z.infer<typeof AttributeMappingSchema>;

/** Roles a new user may get by default; tenant_admin only through an explicit roleValues entry. */
export const JIT_DEFAULT_ROLES = ["manager", "tenant_user", "viewer"] as const;

export const CertificateSummarySchema = z
  .object({
    fingerprintSha256: z.string().openapi({ example: "2A:2F:25:...:F0:9B" }),
    subject: z.string(),
    issuer: z.string(),
    validFrom: DateTime,
    validTo: DateTime,
  })
  .openapi("SsoCertificate");

export const SsoConfigSchema = z
  .object({
    enabled: z.boolean(),
    entryPoint: z
      .string()
      .nullable()
      .openapi({ format: "uri", description: "the IdP's SSO URL (HTTP-Redirect); null until configured" }),
    issuer: z.string().openapi({ description: "this service provider's entity id; the audience the IdP must name" }),
    idpEntityId: z
      .string()
      .nullable()
      .openapi({ description: "the IdP's entity id; the assertion's Issuer must equal it" }),
    callbackUrl: z
      .string()
      .nullable()
      .openapi({ description: "ACS URL override; null = serviceProvider.acsUrl default" }),
    signatureAlgorithm: z
      .enum(SAML_SIGNATURE_ALGORITHMS)
      .openapi({ description: "the weakest signature/digest algorithm accepted from the IdP" }),
    attributeMapping: AttributeMappingSchema,
    certificates: z
      .array(CertificateSummarySchema)
      .openapi({ description: "the IdP signing certificates (1-2); only fingerprints and names are shown" }),
    jitProvisioning: z.boolean().openapi({ description: "create an unknown user on first sign-in" }),
    defaultRole: z
      .enum(JIT_DEFAULT_ROLES)
      .openapi({ description: "role of a just-in-time user when roleValues gives none" }),
    enforceSso: z.boolean().openapi({
      description: "while enabled, this tenant's users cannot sign in with a password (platform admins excepted)",
    }),
    serviceProvider: z
      .object({
        entityId: z.string(),
        acsUrl: z.string(),
        metadataUrl: z.string(),
        loginUrl: z.string(),
      })
      .openapi({ description: "the values to enter at the IdP" }),
    updatedAt: DateTime.nullable(),
  })
  .openapi("SsoConfig");
export type SsoConfigDto = z.infer<typeof SsoConfigSchema>;

const IdpCertificate = z
  .string()
  .max(MAX_PEM_CHARS)
  .transform((s, ctx) => {
    const parsed = parseIdpCertificate(s);
    if ("error" in parsed) {
      ctx.addIssue({ code: "custom", message: parsed.error });
      return z.NEVER;
    }
    return parsed.pem;
  })
  .openapi({ description: "X.509 certificate, PEM" });

export const UpdateSsoConfigBody = z
  .strictObject({
    enabled: z.boolean(),
    entryPoint: HttpUrl,
    issuer: z.string().trim().min(1).max(1024),
    idpEntityId: z.string().trim().min(1).max(1024),
    callbackUrl: HttpUrl.nullable(),
    signatureAlgorithm: z.enum(SAML_SIGNATURE_ALGORITHMS),
    attributeMapping: AttributeMappingSchema,
    idpCertificates: z
      .array(IdpCertificate)
      .min(1)
      .max(2)
      .refine((certs) => new Set(certs).size === certs.length, "The same certificate twice")
      .openapi({ description: "replaces the stored set; two during a rotation" }),
    jitProvisioning: z.boolean(),
    defaultRole: z.enum(JIT_DEFAULT_ROLES),
    enforceSso: z.boolean(),
  })
  .partial()
  .openapi("UpdateSsoConfigRequest");
export type UpdateSsoConfigInput = z.infer<typeof UpdateSsoConfigBody>;

export const MAX_METADATA_CHARS = 512 * 1024;
export const ImportSsoMetadataBody = z
  .object({
    metadataXml: z
      .string()
      .min(1)
      .max(MAX_METADATA_CHARS)
      .openapi({ description: "the IdP's SAML 2.0 metadata document" }),
  })
  .openapi("ImportSsoMetadataRequest");

export type SsoConfigRow = typeof ssoConfigs.$inferSelect;

export const toSsoConfig = (row: SsoConfigRow, sp: ServiceProviderUrls, configured: boolean): SsoConfigDto => ({
  enabled: row.enabled,
  entryPoint: row.entryPoint,
  issuer: row.issuer,
  idpEntityId: row.idpEntityId,
  callbackUrl: row.callbackUrl,
  signatureAlgorithm: row.signatureAlgorithm,
  attributeMapping: row.attributeMapping as AttributeMapping,
  certificates: row.idpCertificates.map(describeCertificate),
  jitProvisioning: row.jitProvisioning,
  defaultRole: row.defaultRole as (typeof JIT_DEFAULT_ROLES)[number],
  enforceSso: row.enforceSso,
  serviceProvider: sp,
  updatedAt: configured ? row.updatedAt : null,
});

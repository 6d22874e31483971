import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, jsonObject, timestamp, updatedAt } from "./columns";
import { TENANT_ROLES } from "./identity";
import { tenants } from "./tenancy";

export const SAML_SIGNATURE_ALGORITHMS = ["sha1", "sha256", "sha512"] as const;
export type SamlSignatureAlgorithm = (typeof SAML_SIGNATURE_ALGORITHMS)[number];

/** One SAML 2.0 identity provider per tenant. */
export const ssoConfigs = sqliteTable("sso_configs", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
  /** the IdP's HTTP-Redirect SingleSignOnService URL */
  entryPoint: text("entry_point"),
  /** this service provider's entity id (the audience the IdP must name) */
  issuer: text("issuer").notNull(),
  idpEntityId: text("idp_entity_id"),
  /** the ACS URL; null means {PUBLIC_BASE_URL}/auth/saml/{slug}/callback */
  callbackUrl: text("callback_url"),
  /** the weakest signature and digest algorithm accepted from the IdP */
  signatureAlgorithm: text("signature_algorithm", { enum: SAML_SIGNATURE_ALGORITHMS }).notNull().default("sha256"),
  attributeMapping: jsonObject("attribute_mapping"),
  /** PEM; two at once during a rotation, any of them verifies */
  idpCertificates: text("idp_certificates", { mode: "json" }).$type<string[]>().notNull().default([]),
  jitProvisioning: integer("jit_provisioning", { mode: "boolean" }).notNull().default(false),
  defaultRole: text("default_role", { enum: TENANT_ROLES }).notNull().default("tenant_user"),
  /** refuse password login to this tenant's users (platform admins excepted) while SSO is enabled */
  enforceSso: integer("enforce_sso", { mode: "boolean" }).notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** AuthnRequest ids sent to the IdP, so a response's InResponseTo can be checked once. */
export const samlRequests = sqliteTable(
  "saml_requests",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
    /** set when a response answered it (successfully or not); a second answer is a replay */
    consumedAt: timestamp("consumed_at"),
  },
  (t) => [index("saml_requests_tenant_idx").on(t.tenantId), index("saml_requests_expires_idx").on(t.expiresAt)],
);

/** Assertion ids already accepted, kept until the assertion's NotOnOrAfter has passed. */
export const samlAssertions = sqliteTable(
  "saml_assertions",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    assertionId: text("assertion_id").notNull(),
    expiresAt: timestamp("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.assertionId] }), index("saml_assertions_expires_idx").on(t.expiresAt)],
);

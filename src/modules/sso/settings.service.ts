import { eq } from "drizzle-orm";
import { ssoConfigs, tenants } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commitControl } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound, type ValidationIssue, validationError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { forgetTenantRef } from "../identity/principal-cache";
import { parseIdpMetadata } from "./idp-metadata";
import { type SsoConfigRow, toSsoConfig, type UpdateSsoConfigInput } from "./schemas";
import { serviceProviderUrls } from "./urls";

async function load(ctx: ServiceContext) {
  // SSO settings are control-plane rows: the login page finds them by tenant slug before the tenant is known
  const control = ctx.control;
  const [tenantRows, configRows] = await control.batch([
    control.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, ctx.tenantId)).limit(1),
    control.select().from(ssoConfigs).where(eq(ssoConfigs.tenantId, ctx.tenantId)).limit(1),
  ]);
  const tenant = tenantRows[0];
  if (!tenant) throw notFound("Tenant");
  return { slug: tenant.slug, row: configRows[0] ?? null };
}

/** The settings a tenant starts from: disabled, SP entity id = its metadata URL. */
function defaults(ctx: ServiceContext, slug: string, now: string): SsoConfigRow {
  return {
    tenantId: ctx.tenantId,
    enabled: false,
    entryPoint: null,
    issuer: serviceProviderUrls(ctx.env, slug).entityId,
    idpEntityId: null,
    callbackUrl: null,
    signatureAlgorithm: "sha256",
    attributeMapping: {},
    idpCertificates: [],
    jitProvisioning: false,
    defaultRole: "tenant_user",
    enforceSso: false,
    createdAt: now,
    updatedAt: now,
  };
}

const view = (ctx: ServiceContext, slug: string, row: SsoConfigRow, configured: boolean) =>
  toSsoConfig(row, serviceProviderUrls(ctx.env, slug, row), configured);

export async function getSsoSettings(ctx: ServiceContext) {
  const { slug, row } = await load(ctx);
  return row ? view(ctx, slug, row, true) : view(ctx, slug, defaults(ctx, slug, nowIso()), false);
}

/** An enabled configuration must be able to start and verify a sign-in. */
function assertUsable(row: SsoConfigRow) {
  if (!row.enabled) return;
  const issues: ValidationIssue[] = [];
  if (!row.entryPoint) issues.push({ path: "entryPoint", message: "Required when SSO is enabled" });
  if (!row.idpEntityId) issues.push({ path: "idpEntityId", message: "Required when SSO is enabled" });
  if (row.idpCertificates.length === 0)
    issues.push({
      path: "idpCertificates",
      message: "At least one IdP signing certificate is required when SSO is enabled",
    });
  if (issues.length) throw validationError(issues, "SSO cannot be enabled with this configuration");
}

async function save(ctx: ServiceContext, patch: UpdateSsoConfigInput, action: string) {
  const { slug, row } = await load(ctx);
  const now = nowIso();
  const before = row ?? defaults(ctx, slug, now);
  // a field left out keeps its value, also when a door (the console's form) passes it as undefined
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const after: SsoConfigRow = {
    ...before,
    ...given,
    tenantId: ctx.tenantId,
    createdAt: before.createdAt,
    updatedAt: now,
  };
  assertUsable(after);
  const { tenantId: _t, createdAt: _c, ...changes } = after;
  await commitControl(
    ctx,
    (control) => [
      control.insert(ssoConfigs).values(after).onConflictDoUpdate({ target: ssoConfigs.tenantId, set: changes }),
    ],
    [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action,
        resourceType: "sso_config",
        resourceId: ctx.tenantId,
        // the summaries (fingerprints, not certificates) keep the audit row small and readable
        previousState: row ? withoutUrls(view(ctx, slug, row, true)) : null,
        nextState: withoutUrls(view(ctx, slug, after, true)),
      }),
    ],
  );
  // enforcement decides access to the tenant (identity/access.ts): this isolate applies it at once
  forgetTenantRef(ctx.tenantId);
  return view(ctx, slug, after, true);
}

const withoutUrls = ({ serviceProvider: _sp, ...rest }: ReturnType<typeof view>) => rest;

export const updateSsoSettings = (ctx: ServiceContext, patch: UpdateSsoConfigInput) => save(ctx, patch, "sso.updated");

/** Takes entity id, SSO URL and signing certificates from the IdP's metadata; other settings stay. */
export const importSsoMetadata = (ctx: ServiceContext, metadataXml: string) =>
  save(ctx, parseIdpMetadata(metadataXml), "sso.metadata_imported");

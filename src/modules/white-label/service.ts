import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ControlDb } from "../../db/client";
import { agencies, tenants, type WhiteLabelScope, whiteLabelBrands } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commitControl } from "../../lib/commit";
import type { PlatformContext, ServiceContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { type AgencyScope, inAgencyScope } from "../tenants/scope";
import { forgetWhiteLabels, publicBaseUrlOf, tenantWhiteLabel } from "./resolve";
import { type AgencyBrandInput, type TenantBrandInput, toWhiteLabelBrand } from "./schemas";

/**
 * Whom a brand or hostname belongs to; tenantId is set for tenant scope. The rows are control-plane
 * rows (found by host before the tenant is known); the services read and write them on
 * `ctx.control`, while `ctx.db` is where the audit rows go: the tenant's shard for a tenant's
 * brand or hostname (its `GET /v1/audit-events` shows them), the control database for an agency's.
 */
export interface Owner {
  scope: WhiteLabelScope;
  scopeId: string;
  agencyId: string;
  tenantId: string | null;
}

/** An agency the caller administers (platform admins: any); another agency, or an unknown one, is 404. */
export async function agencyOwner(db: ControlDb, scope: AgencyScope, agencyId: string): Promise<Owner> {
  const row = await db.select({ id: agencies.id }).from(agencies).where(eq(agencies.id, agencyId)).get();
  if (!row || !inAgencyScope(scope, row.id)) throw notFound("Agency");
  return { scope: "agency", scopeId: row.id, agencyId: row.id, tenantId: null };
}

export async function tenantOwner(ctx: ServiceContext): Promise<Owner> {
  const row = await ctx.control
    .select({ agencyId: tenants.agencyId })
    .from(tenants)
    .where(eq(tenants.id, ctx.tenantId))
    .get();
  if (!row) throw notFound("Tenant");
  return { scope: "tenant", scopeId: ctx.tenantId, agencyId: row.agencyId, tenantId: ctx.tenantId };
}

export const brandOf = (db: ControlDb, scope: WhiteLabelScope, scopeId: string) =>
  db
    .select()
    .from(whiteLabelBrands)
    .where(and(eq(whiteLabelBrands.scope, scope), eq(whiteLabelBrands.scopeId, scopeId)))
    .get();

export async function getAgencyBrand(db: ControlDb, owner: Owner) {
  const row = await brandOf(db, "agency", owner.scopeId);
  if (!row) throw notFound("Agency brand");
  return toWhiteLabelBrand(row);
}

/**
 * Creates or replaces a brand row (one per scope), with its audit row, in one batch; `alongside` are control
 * statements that belong with it (an uploaded logo's row: logos.ts).
 */
export async function saveBrand(
  ctx: PlatformContext,
  owner: Owner,
  values: Record<string, string | null>,
  alongside: (control: ControlDb) => BatchItem<"sqlite">[] = () => [],
) {
  const before = await brandOf(ctx.control, owner.scope, owner.scopeId);
  const now = nowIso();
  const row = {
    id: before?.id ?? newId(),
    scope: owner.scope,
    scopeId: owner.scopeId,
    agencyId: owner.agencyId,
    name: null,
    logoUrl: null,
    primaryColor: null,
    accentColor: null,
    supportEmail: null,
    ...values,
    createdAt: before?.createdAt ?? now,
    updatedAt: now,
  };
  const { id, createdAt, ...set } = row;
  await commitControl(
    ctx,
    (control) => [
      ...alongside(control),
      control
        .insert(whiteLabelBrands)
        .values(row)
        .onConflictDoUpdate({ target: [whiteLabelBrands.scope, whiteLabelBrands.scopeId], set }),
    ],
    [
      auditStatement(ctx, {
        tenantId: owner.tenantId,
        action: "white_label.brand_saved",
        resourceType: `${owner.scope}_brand`,
        resourceId: owner.scopeId,
        previousState: before ?? null,
        nextState: row,
      }),
    ],
  );
  forgetWhiteLabels();
  return toWhiteLabelBrand(row);
}

async function deleteBrand(ctx: PlatformContext, owner: Owner) {
  const before = await brandOf(ctx.control, owner.scope, owner.scopeId);
  if (!before) throw notFound(owner.scope === "agency" ? "Agency brand" : "Brand override");
  await commitControl(ctx, (control) => [control.delete(whiteLabelBrands).where(eq(whiteLabelBrands.id, before.id))], [
    auditStatement(ctx, {
      tenantId: owner.tenantId,
      action: "white_label.brand_deleted",
      resourceType: `${owner.scope}_brand`,
      resourceId: owner.scopeId,
      previousState: before,
    }),
  ]);
  forgetWhiteLabels();
}

export const putAgencyBrand = (ctx: PlatformContext, owner: Owner, input: AgencyBrandInput) =>
  saveBrand(ctx, owner, {
    name: input.name,
    logoUrl: input.logoUrl ?? null,
    primaryColor: input.primaryColor ?? null,
    accentColor: input.accentColor ?? null,
    supportEmail: input.supportEmail ?? null,
  });

export const deleteAgencyBrand = deleteBrand;

/** The tenant's override, its agency's brand, what pages show, and where its links point. */
export async function getTenantBranding(ctx: ServiceContext) {
  const owner = await tenantOwner(ctx);
  const control = ctx.control;
  const [override, agency, wl] = await Promise.all([
    brandOf(control, "tenant", ctx.tenantId),
    brandOf(control, "agency", owner.agencyId),
    tenantWhiteLabel(control, ctx.tenantId),
  ]);
  const { source, ...fields } = wl!.brand;
  return {
    override: override ? toWhiteLabelBrand(override) : null,
    agency: agency ? toWhiteLabelBrand(agency) : null,
    effective: { ...fields, source },
    publicBaseUrl: publicBaseUrlOf(ctx.env, wl),
  };
}

/** PUT replaces the override: fields left out or null inherit the agency's values. */
export async function putTenantBranding(ctx: ServiceContext, input: TenantBrandInput) {
  const owner = await tenantOwner(ctx);
  await saveBrand(ctx, owner, {
    name: input.name ?? null,
    logoUrl: input.logoUrl ?? null,
    primaryColor: input.primaryColor ?? null,
    accentColor: input.accentColor ?? null,
    supportEmail: input.supportEmail ?? null,
  });
  return getTenantBranding(ctx);
}

export async function deleteTenantBranding(ctx: ServiceContext) {
  await deleteBrand(ctx, await tenantOwner(ctx));
}

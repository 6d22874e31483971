import { eq } from "drizzle-orm";
import { complianceConfigs } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { COMPLIANCE_DEFAULTS, type ComplianceConfig } from "./schemas";

/** The tenant's compliance settings (defaults until saved); the sending policy reads these. */
export async function getComplianceConfig(ctx: Pick<ServiceContext, "db" | "tenantId">): Promise<ComplianceConfig> {
  const row = await ctx.db.select().from(complianceConfigs).where(eq(complianceConfigs.tenantId, ctx.tenantId)).get();
  if (!row) return { ...COMPLIANCE_DEFAULTS };
  const { tenantId: _t, updatedAt: _u, ...config } = row;
  return config;
}

export async function updateComplianceConfig(
  ctx: ServiceContext,
  patch: Partial<ComplianceConfig>,
): Promise<ComplianceConfig> {
  const before = await getComplianceConfig(ctx);
  const after: ComplianceConfig = { ...before, ...patch };
  const row = { ...after, tenantId: ctx.tenantId, updatedAt: nowIso() };
  await commit(ctx, [
    ctx.db
      .insert(complianceConfigs)
      .values(row)
      .onConflictDoUpdate({ target: complianceConfigs.tenantId, set: { ...after, updatedAt: row.updatedAt } }),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "compliance.updated",
      resourceType: "compliance_config",
      resourceId: ctx.tenantId,
      previousState: before,
      nextState: after,
    }),
  ]);
  return after;
}

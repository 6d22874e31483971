import { count, eq } from "drizzle-orm";
import { agencies } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { PlatformContext } from "../../lib/context";
import { isUniqueViolation } from "../../lib/db-errors";
import { conflict, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { type GrantPlan, planAccessGrant } from "../users/provision";
import { type CreateAgencyInput, toAgency } from "./schemas";

const grantPlan = (ctx: PlatformContext, agency: { id: string; name: string }, email: string, name?: string) =>
  planAccessGrant(ctx.control, ctx.env, {
    email,
    name,
    roles: ["agency_admin"],
    scopeType: "agency",
    scopeId: agency.id,
    homeTenantId: null,
    emailTenantId: null,
    invitedTo: `the agency ${agency.name}`,
  });

const grantDto = (agencyId: string, plan: GrantPlan) => ({
  agencyId,
  userId: plan.user.id,
  email: plan.user.email,
  role: "agency_admin" as const,
  invited: plan.invited,
});

const grantAudit = (ctx: PlatformContext, agencyId: string, plan: GrantPlan) =>
  auditStatement(ctx, {
    tenantId: null,
    action: "agency.admin_granted",
    resourceType: "agency",
    resourceId: agencyId,
    nextState: { userId: plan.user.id, email: plan.user.email, invited: plan.invited, created: plan.created },
  });

/** The agency, and with adminEmail its first agency_admin (created and invited, or granted), in one batch. */
export async function createAgency(ctx: PlatformContext, input: CreateAgencyInput) {
  const now = nowIso();
  const agency = { id: newId(), name: input.name, slug: input.slug, isActive: true, createdAt: now, updatedAt: now };
  const plan = input.adminEmail ? await grantPlan(ctx, agency, input.adminEmail, input.adminName) : null;
  try {
    await commit(ctx, [
      ctx.db.insert(agencies).values(agency),
      auditStatement(ctx, {
        tenantId: null,
        action: "agency.created",
        resourceType: "agency",
        resourceId: agency.id,
        nextState: agency,
      }),
      ...(plan ? [...plan.statements, grantAudit(ctx, agency.id, plan)] : []),
    ]);
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`An agency with slug '${input.slug}' already exists`);
    throw e;
  }
  await plan?.notify();
  return { ...toAgency(agency), admin: plan ? grantDto(agency.id, plan) : null };
}

export async function addAgencyAdmin(ctx: PlatformContext, agencyId: string, input: { email: string; name?: string }) {
  const agency = await ctx.control.select().from(agencies).where(eq(agencies.id, agencyId)).get();
  if (!agency) throw notFound("Agency");
  const plan = await grantPlan(ctx, agency, input.email, input.name);
  await commit(ctx, [...plan.statements, grantAudit(ctx, agency.id, plan)]);
  await plan.notify();
  return grantDto(agency.id, plan);
}

export async function listAgencies(ctx: PlatformContext, q: PageQuery) {
  return keysetPage(ctx.control, {
    query: q,
    sort: [agencies.createdAt, agencies.id],
    rows: (cursor, order, limit) =>
      ctx.control
        .select()
        .from(agencies)
        .where(cursor)
        .orderBy(...order)
        .limit(limit),
    count: ctx.control.select({ n: count() }).from(agencies),
    key: (a) => [a.createdAt, a.id],
    map: toAgency,
  });
}

import { and, count, eq, inArray, notExists } from "drizzle-orm";
import { passwordCredentials, roleAssignments, type TenantRole, tenants, users, userTokens } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { groupMap } from "../../lib/collections";
import { commit, commitControl } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { conflict, forbidden, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { nowIso } from "../../lib/time";
import { forgetPrincipal } from "../identity/principal-cache";
import { endUserSessionsStatement, forgetUserSessions } from "../identity/sessions";
import { accountIsTenants, mayChange, type PersonChange } from "./authority";
import { tenantGrants } from "./membership";
import { planAccessGrant } from "./provision";
import { type AddTenantUserInput, awaitsInvite, toTenantUser, type UpdateUserInput } from "./schemas";
import { burnUserTokens, issueUserToken, sendInviteEmail } from "./tokens";

const tenantRoleRows = (ctx: ServiceContext) => tenantGrants(ctx.tenantId);

/** Users and grants are control-plane rows (docs/scaling.md); the audit rows go to the tenant's shard. */

const memberIds = (ctx: ServiceContext) =>
  ctx.control.select({ id: roleAssignments.userId }).from(roleAssignments).where(tenantRoleRows(ctx));

async function rolesOf(ctx: ServiceContext, userIds: string[]) {
  const rows = userIds.length
    ? await ctx.control
        .select({ userId: roleAssignments.userId, role: roleAssignments.role })
        .from(roleAssignments)
        .where(and(tenantRoleRows(ctx), inArray(roleAssignments.userId, userIds)))
    : [];
  return groupMap(
    rows,
    (r) => r.userId,
    (r) => r.role as TenantRole,
  );
}

/** Users holding a role in this tenant (members), newest first, with their roles here. */
export async function listTenantUsers(ctx: ServiceContext, q: PageQuery & { isActive?: boolean }) {
  const where = and(
    inArray(users.id, memberIds(ctx)),
    q.isActive === undefined ? undefined : eq(users.isActive, q.isActive),
  );
  const page = await keysetPage(ctx.control, {
    query: q,
    sort: [users.createdAt, users.id],
    rows: (cursor, order, limit) =>
      ctx.control
        .select({ user: users, hash: passwordCredentials.hash })
        .from(users)
        .leftJoin(passwordCredentials, eq(passwordCredentials.userId, users.id))
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.control.select({ n: count() }).from(users).where(where),
    key: (r) => [r.user.createdAt, r.user.id],
    map: (r) => r,
  });
  const roles = await rolesOf(
    ctx,
    page.data.map((r) => r.user.id),
  );
  return { ...page, data: page.data.map((r) => toTenantUser(r.user, roles.get(r.user.id) ?? [], Boolean(r.hash))) };
}

/** A member of this tenant with their roles here and every role they hold anywhere; 404 for anyone else. */
async function findMember(ctx: ServiceContext, id: string) {
  const db = ctx.control;
  const [rows, grants] = await db.batch([
    db
      .select({ user: users, hash: passwordCredentials.hash })
      .from(users)
      .leftJoin(passwordCredentials, eq(passwordCredentials.userId, users.id))
      .where(and(eq(users.id, id), inArray(users.id, memberIds(ctx))))
      .limit(1),
    db
      .select({ role: roleAssignments.role, scopeType: roleAssignments.scopeType, scopeId: roleAssignments.scopeId })
      .from(roleAssignments)
      .where(eq(roleAssignments.userId, id)),
  ]);
  const row = rows[0];
  if (!row) throw notFound("User");
  const roles = grants
    .filter((g) => g.scopeType === "tenant" && g.scopeId === ctx.tenantId)
    .map((g) => g.role as TenantRole);
  return { ...row, roles, grants };
}

/**
 * The guard every user-changing service passes (authority.ts): the member, if this tenant's admin may
 * make this kind of change to them; 403 when the change reaches beyond what the tenant grants.
 */
async function memberToChange(ctx: ServiceContext, id: string, change: PersonChange) {
  const m = await findMember(ctx, id);
  if (!mayChange(ctx.actor, ctx.tenantId, m.grants, change))
    throw forbidden(
      "This person holds roles beyond this tenant; only their roles here can be changed (PUT /v1/users/{id}/roles, DELETE /v1/users/{id})",
      "beyond_tenant",
    );
  return m;
}

export const getTenantUser = async (ctx: ServiceContext, id: string) => {
  const m = await findMember(ctx, id);
  return toTenantUser(m.user, m.roles, Boolean(m.hash));
};

async function tenantName(ctx: ServiceContext) {
  const tenant = await ctx.db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, ctx.tenantId)).get();
  if (!tenant) throw notFound("Tenant");
  return tenant.name;
}

/** Invite (email with a setup token) or, with a password, create; an existing account is granted the role. */
export async function addTenantUser(ctx: ServiceContext, input: AddTenantUserInput) {
  const invitedTo = await tenantName(ctx);
  const plan = await planAccessGrant(ctx.control, ctx.env, {
    email: input.email,
    name: input.name,
    password: input.password,
    roles: [input.role],
    scopeType: "tenant",
    scopeId: ctx.tenantId,
    homeTenantId: ctx.tenantId,
    emailTenantId: ctx.tenantId,
    invitedTo,
  });
  await commitControl(ctx, () => plan.statements, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: plan.invited ? "user.invited" : "user.added",
      resourceType: "user",
      resourceId: plan.user.id,
      nextState: { email: plan.user.email, name: plan.user.name, roles: [input.role], created: plan.created },
    }),
  ]);
  await plan.notify();
  return toTenantUser(plan.user, [input.role], !plan.invited);
}

const notSelf = (ctx: ServiceContext, id: string, what: string) => {
  if (ctx.actor.type === "user" && ctx.actor.userId === id)
    throw forbidden(`You cannot ${what} your own account`, "own_account");
};

/** Renames, deactivates or reactivates an account: the account as a whole, so only one that is this tenant's. */
export async function updateTenantUser(ctx: ServiceContext, id: string, patch: UpdateUserInput) {
  if (patch.isActive === false) notSelf(ctx, id, "deactivate");
  const m = await memberToChange(ctx, id, "account");
  const after = { ...m.user, ...patch, updatedAt: nowIso() };
  const deactivated = m.user.isActive && patch.isActive === false;
  await commitControl(
    ctx,
    (c) => [
      c
        .update(users)
        .set({ ...patch, updatedAt: after.updatedAt })
        .where(eq(users.id, id)),
      // a deactivation ends every session of the account (docs/sessions.md); reactivating opens none again
      ...(deactivated
        ? [
            burnUserTokens(c, id, "invite"),
            burnUserTokens(c, id, "reset"),
            endUserSessionsStatement(c, id, "deactivated"),
          ]
        : []),
    ],
    [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: deactivated ? "user.deactivated" : "user.updated",
        resourceType: "user",
        resourceId: id,
        previousState: { name: m.user.name, isActive: m.user.isActive },
        nextState: { name: after.name, isActive: after.isActive },
      }),
    ],
  );
  forgetUserSessions(id);
  return toTenantUser(after, m.roles, Boolean(m.hash));
}

/** Replaces the user's roles in this tenant. */
export async function setTenantUserRoles(ctx: ServiceContext, id: string, roles: TenantRole[]) {
  notSelf(ctx, id, "change the roles of");
  const m = await memberToChange(ctx, id, "tenant_roles");
  const next = [...new Set(roles)];
  const now = nowIso();
  await commitControl(
    ctx,
    (c) => [
      c.delete(roleAssignments).where(and(tenantRoleRows(ctx), eq(roleAssignments.userId, id))),
      c.insert(roleAssignments).values(
        next.map((role) => ({
          id: newId(),
          userId: id,
          role,
          scopeType: "tenant" as const,
          scopeId: ctx.tenantId,
          createdAt: now,
        })),
      ),
    ],
    [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "user.roles_set",
        resourceType: "user",
        resourceId: id,
        previousState: { roles: m.roles },
        nextState: { roles: next },
      }),
    ],
  );
  forgetPrincipal(id);
  return toTenantUser(m.user, next, Boolean(m.hash));
}

/**
 * DELETE: a person whose every role lies in this tenant is deactivated (they cannot sign in and their
 * sessions end); anyone who is more than this tenant's (platform or agency roles, roles in another
 * tenant) only loses their roles here, whoever acts and wherever they are homed.
 */
export async function removeTenantUser(ctx: ServiceContext, id: string) {
  notSelf(ctx, id, "remove");
  const m = await memberToChange(ctx, id, "tenant_roles");
  if (accountIsTenants(ctx.tenantId, m.grants)) {
    await updateTenantUser(ctx, id, { isActive: false });
    return;
  }
  await commitControl(
    ctx,
    (c) => [c.delete(roleAssignments).where(and(tenantRoleRows(ctx), eq(roleAssignments.userId, id)))],
    [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "user.access_removed",
        resourceType: "user",
        resourceId: id,
        previousState: { roles: m.roles },
        nextState: { roles: [] },
      }),
    ],
  );
  forgetPrincipal(id);
}

/**
 * A member of this tenant whose invite is still pending (awaitsInvite): 404 for anyone who is not a
 * member here (another tenant's invite), 409 once they have a password or when they sign in with SAML
 * (never invited). Resending to a deactivated account is 409 too: its token could not be accepted
 * (setup-password refuses inactive accounts).
 */
async function pendingInvitee(ctx: ServiceContext, id: string) {
  const m = await findMember(ctx, id);
  if (m.user.authProvider !== "password")
    throw conflict("This person signs in with SSO and has no invite; DELETE /v1/users/{id} removes them", "sso_person");
  if (!awaitsInvite(m.user, Boolean(m.hash)))
    throw conflict("This person has accepted their invite; DELETE /v1/users/{id} removes them", "invite_accepted");
  return m;
}

/**
 * Resend: a fresh invite token for this tenant, mailed through the platform's sender; the tenant's
 * earlier invite tokens of this person are burnt in the same batch, so only the newest link works.
 */
export async function resendTenantInvite(ctx: ServiceContext, id: string) {
  const m = await pendingInvitee(ctx, id);
  if (!m.user.isActive)
    throw conflict("This account is deactivated; reactivate it (PATCH /v1/users/{id}) first", "account_deactivated");
  const invitedTo = await tenantName(ctx);
  const c = ctx.control;
  const invite = await issueUserToken(c, { userId: id, purpose: "invite", tenantId: ctx.tenantId });
  // One batch (one transaction): the new token is taken back at once unless the person still holds a role
  // here, so a revoke that ran between the check above and this batch leaves no usable token (404 then)
  const [, , takenBack] = await c.batch([
    burnUserTokens(c, id, "invite", ctx.tenantId),
    invite.statement,
    c
      .delete(userTokens)
      .where(
        and(
          eq(userTokens.id, invite.id),
          notExists(
            c
              .select({ id: roleAssignments.id })
              .from(roleAssignments)
              .where(and(tenantRoleRows(ctx), eq(roleAssignments.userId, id))),
          ),
        ),
      )
      .returning({ id: userTokens.id }),
  ]);
  if (takenBack.length) throw notFound("User");
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "user.invite_resent",
      resourceType: "user",
      resourceId: id,
      nextState: { email: m.user.email, roles: m.roles },
    }),
  ]);
  await sendInviteEmail(ctx.env, { userId: id, to: m.user.email, token: invite.token, invitedTo });
  return toTenantUser(m.user, m.roles, false);
}

/**
 * Revoke: the person's invite tokens for this tenant are burnt and the roles the invite granted here
 * removed, so the pending person leaves the tenant's list (an invite of another tenant stays usable;
 * inviting the address again sends a new one).
 */
export async function revokeTenantInvite(ctx: ServiceContext, id: string) {
  const m = await pendingInvitee(ctx, id);
  await commitControl(
    ctx,
    (c) => [
      burnUserTokens(c, id, "invite", ctx.tenantId),
      c.delete(roleAssignments).where(and(tenantRoleRows(ctx), eq(roleAssignments.userId, id))),
    ],
    [
      auditStatement(ctx, {
        tenantId: ctx.tenantId,
        action: "user.invite_revoked",
        resourceType: "user",
        resourceId: id,
        previousState: { email: m.user.email, roles: m.roles },
        nextState: { roles: [] },
      }),
    ],
  );
  forgetPrincipal(id);
}

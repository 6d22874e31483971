import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ControlDb } from "../../db/client";
import { passwordCredentials, type Role, roleAssignments, type ScopeType, users } from "../../db/schema";
import type { Env } from "../../env";
import { hashPassword } from "../../lib/crypto";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { issueUserToken, sendAccessGrantedEmail, sendInviteEmail } from "./tokens";

export interface AccessGrant {
  email: string;
  name?: string;
  /** create the account with this password instead of inviting */
  password?: string;
  /** roles to grant on the scope (tenant roles, or agency_admin on an agency) */
  roles: Role[];
  scopeType: Exclude<ScopeType, "platform">;
  scopeId: string;
  /** home tenant of a new account (null for agency admins) */
  homeTenantId: string | null;
  /**
   * the tenant the invite is for (its token records it: the acceptance is audited there); null for
   * agency and platform invites. The mail's look is not chosen here: account-mail.ts derives it from
   * every role the person holds once the grant committed
   */
  emailTenantId: string | null;
  invitedTo: string;
}

export interface GrantPlan {
  user: typeof users.$inferSelect;
  created: boolean;
  invited: boolean;
  statements: BatchItem<"sqlite">[];
  /** sends the invite or access email; call after the batch committed */
  notify: () => Promise<unknown>;
}

/**
 * Plans granting roles on a scope to the account with this email: an existing account gets the roles
 * (and an email saying so, or a fresh invite if it never set a password); a new account is created
 * with the password given, or invited. Already holding a role on that scope is a 409.
 */
export async function planAccessGrant(db: ControlDb, env: Env, g: AccessGrant): Promise<GrantPlan> {
  const [found, held] = await db.batch([
    db
      .select({ user: users, hash: passwordCredentials.hash })
      .from(users)
      .leftJoin(passwordCredentials, eq(passwordCredentials.userId, users.id))
      .where(eq(users.email, g.email))
      .limit(1),
    db
      .select({ id: roleAssignments.id })
      .from(roleAssignments)
      .innerJoin(users, eq(users.id, roleAssignments.userId))
      .where(
        and(
          eq(users.email, g.email),
          eq(roleAssignments.scopeType, g.scopeType),
          eq(roleAssignments.scopeId, g.scopeId),
        ),
      )
      .limit(1),
  ]);
  if (held[0]) throw conflict(`${g.email} already has access here`);
  const existing = found[0];
  if (existing && g.password) throw conflict(`An account for ${g.email} exists; omit password to grant it access`);

  const now = nowIso();
  const user = existing?.user ?? {
    id: newId(),
    tenantId: g.homeTenantId,
    email: g.email,
    name: g.name ?? g.email.split("@")[0]!,
    authProvider: "password",
    avatarUrl: null,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  const statements: BatchItem<"sqlite">[] = [];
  if (!existing) statements.push(db.insert(users).values(user));
  statements.push(
    db.insert(roleAssignments).values(
      g.roles.map((role) => ({
        id: newId(),
        userId: user.id,
        role,
        scopeType: g.scopeType,
        scopeId: g.scopeId,
        createdAt: now,
      })),
    ),
  );
  if (g.password) {
    statements.push(
      db.insert(passwordCredentials).values({ userId: user.id, hash: await hashPassword(g.password), updatedAt: now }),
    );
    return { user, created: true, invited: false, statements, notify: async () => undefined };
  }
  if (existing?.hash) {
    const notify = () => sendAccessGrantedEmail(env, { userId: user.id, to: user.email, grantedTo: g.invitedTo });
    return { user, created: false, invited: false, statements, notify };
  }
  const invite = await issueUserToken(db, { userId: user.id, purpose: "invite", tenantId: g.emailTenantId });
  statements.push(invite.statement);
  const notify = () =>
    sendInviteEmail(env, {
      userId: user.id,
      to: user.email,
      token: invite.token,
      invitedTo: g.invitedTo,
    });
  return { user, created: !existing, invited: true, statements, notify };
}

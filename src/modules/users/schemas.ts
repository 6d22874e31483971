import { z } from "@hono/zod-openapi";
import { TENANT_ROLES, type TenantRole, type users } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { Email, Password } from "../../lib/validators";

export const UserSchema = z
  .object({
    id: z.string(),
    tenantId: z.string().nullable(),
    email: z.email(),
    name: z.string(),
    authProvider: z.string(),
    avatarUrl: z.string().nullable(),
    isActive: z.boolean(),
    createdAt: DateTime,
  })
  .openapi("User");

export const toUser = (u: typeof users.$inferSelect) => ({
  id: u.id,
  tenantId: u.tenantId,
  email: u.email,
  name: u.name,
  authProvider: u.authProvider,
  avatarUrl: u.avatarUrl,
  isActive: u.isActive,
  createdAt: u.createdAt,
});

export const TenantUserSchema = UserSchema.extend({
  roles: z.array(z.enum(TENANT_ROLES)).openapi({ description: "the user's roles in this tenant" }),
  invitePending: z.boolean().openapi({
    description: "true until the invite is accepted (no password set yet); always false for a person SAML provisioned",
  }),
}).openapi("TenantUser");

const Name = z.string().trim().min(1).max(200);

export const InviteUserBody = z
  .object({ email: Email, name: Name.optional(), role: z.enum(TENANT_ROLES) })
  .openapi("InviteUserRequest");

export const AddTenantUserBody = InviteUserBody.extend({
  password: Password.optional().openapi({
    description: "create the account with this password instead of emailing an invite",
  }),
}).openapi("AddTenantUserRequest");

export const UpdateUserBody = z
  .object({ name: Name.optional(), isActive: z.boolean().optional() })
  .openapi("UpdateUserRequest");

export const SetRolesBody = z
  .object({ roles: z.array(z.enum(TENANT_ROLES)).min(1).max(TENANT_ROLES.length) })
  .openapi("SetUserRolesRequest");

export const UserListQuery = PageQuerySchema.extend({
  isActive: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

export type AddTenantUserInput = z.infer<typeof AddTenantUserBody>;
export type UpdateUserInput = z.infer<typeof UpdateUserBody>;
export type TenantUserDto = z.infer<typeof TenantUserSchema>;

/**
 * An invite is pending while a person who signs in with a password has none yet. A SAML-provisioned
 * person never had an invite (they sign in at their IdP): nothing is pending, nothing to resend or revoke.
 */
export const awaitsInvite = (u: Pick<typeof users.$inferSelect, "authProvider">, hasPassword: boolean) =>
  u.authProvider === "password" && !hasPassword;

export const toTenantUser = (
  u: typeof users.$inferSelect,
  roles: TenantRole[],
  hasPassword: boolean,
): TenantUserDto => ({
  ...toUser(u),
  roles,
  invitePending: awaitsInvite(u, hasPassword),
});

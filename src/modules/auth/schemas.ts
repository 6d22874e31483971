import { z } from "@hono/zod-openapi";
import { ROLES, SCOPE_TYPES, TENANT_ROLES } from "../../db/schema";
import { Email, Password } from "../../lib/validators";
import { UserSchema } from "../users/schemas";

export const SessionUserSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string(), tenantId: z.string().nullable() })
  .openapi("SessionUser");

export const LoginBody = z.object({ email: Email, password: Password }).openapi("LoginRequest");
export const LoginResponse = z.object({ token: z.string(), user: SessionUserSchema }).openapi("LoginResponse");

export const RoleAssignmentSchema = z
  .object({
    role: z.enum(ROLES),
    scope: z.enum(SCOPE_TYPES),
    scopeId: z.string().nullable().openapi({ description: "agency or tenant id; null for platform scope" }),
  })
  .openapi("RoleAssignment");

export const MeResponse = UserSchema.extend({
  roles: z.array(RoleAssignmentSchema),
  tenantAccess: z
    .object({
      tenantId: z.string(),
      via: z.enum(["platform", "tenant", "agency", "api_key"]),
      role: z.enum(TENANT_ROLES),
    })
    .nullable()
    .openapi({ description: "present when x-tenant-id names a tenant the caller can reach" }),
}).openapi("Me");

export const toSessionUser = (u: { id: string; email: string; name: string; tenantId: string | null }) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  tenantId: u.tenantId,
});

export const SetupPasswordBody = z
  .object({ inviteToken: z.string().min(1).max(200), name: z.string().trim().min(1).max(200), password: Password })
  .openapi("SetupPasswordRequest");
export const ForgotPasswordBody = z.object({ email: Email }).openapi("ForgotPasswordRequest");
export const ResetPasswordBody = z
  .object({ token: z.string().min(1).max(200), password: Password })
  .openapi("ResetPasswordRequest");
export const OkResponse = z.object({ ok: z.boolean() }).openapi("Ok");
export const ResetPasswordResponse = z
  .object({
    ok: z.boolean(),
    token: z.string().openapi({ description: "a session JWT of a new session (every earlier one ended)" }),
    user: SessionUserSchema,
  })
  .openapi("ResetPasswordResponse");
export const LogoutResponse = z
  .object({ ended: z.number().int().openapi({ description: "how many open sessions this call ended" }) })
  .openapi("LogoutResponse");
export const ChangePasswordBody = z
  .object({ currentPassword: Password, newPassword: Password })
  .openapi("ChangePasswordRequest");

export const UpdateMeBody = z
  .object({ name: z.string().trim().min(1).max(200).openapi({ description: "your display name" }) })
  .openapi("UpdateMeRequest");

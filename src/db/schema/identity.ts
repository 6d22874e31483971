import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "./columns";
import { tenants } from "./tenancy";

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** home tenant; null for agency-only and platform-only accounts */
    tenantId: text("tenant_id").references(() => tenants.id),
    /** stored lower-cased and trimmed; login is by email across the platform */
    email: text("email").notNull().unique(),
    name: text("name").notNull(),
    authProvider: text("auth_provider").notNull().default("password"),
    avatarUrl: text("avatar_url"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("users_tenant_created_idx").on(t.tenantId, t.createdAt, t.id)],
);

export const passwordCredentials = sqliteTable("password_credentials", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  /** PHC string, e.g. $scrypt$ln=14,r=8,p=5$salt$hash */
  hash: text("hash").notNull(),
  updatedAt: updatedAt(),
});

export const ROLES = ["platform_admin", "agency_admin", "tenant_admin", "manager", "tenant_user", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const TENANT_ROLES = ["tenant_admin", "manager", "tenant_user", "viewer"] as const;
export type TenantRole = (typeof TENANT_ROLES)[number];
export const SCOPE_TYPES = ["platform", "agency", "tenant"] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];

export const roleAssignments = sqliteTable(
  "role_assignments",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    role: text("role", { enum: ROLES }).notNull(),
    scopeType: text("scope_type", { enum: SCOPE_TYPES }).notNull(),
    /** agency id or tenant id; '' for platform scope so the unique index holds */
    scopeId: text("scope_id").notNull().default(""),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("role_assignments_uq").on(t.userId, t.role, t.scopeType, t.scopeId),
    index("role_assignments_scope_idx").on(t.scopeType, t.scopeId),
  ],
);

/** Singleton flags; the primary key makes a second bootstrap fail atomically. */
export const platformState = sqliteTable("platform_state", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

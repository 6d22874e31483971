import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp } from "./columns";
import { users } from "./identity";
import { tenants } from "./tenancy";

/** Tenant API keys: only the SHA-256 of the raw key is stored; `prefix` is what lists show. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdByUserId: text("created_by_user_id").references(() => users.id),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at"),
    lastUsedAt: timestamp("last_used_at"),
    revokedAt: timestamp("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_keys_hash_uq").on(t.keyHash),
    index("api_keys_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("api_keys_created_by_idx").on(t.createdByUserId),
  ],
);

/** invite and reset: mailed links; sso: the single-use code SAML sign-in hands the built-in console (seconds) */
export const USER_TOKEN_PURPOSES = ["invite", "reset", "sso"] as const;
export type UserTokenPurpose = (typeof USER_TOKEN_PURPOSES)[number];

/** Invite and password-reset tokens: hashed, single use (usedAt), with an expiry. */
export const userTokens = sqliteTable(
  "user_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    purpose: text("purpose", { enum: USER_TOKEN_PURPOSES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    /** the tenant whose email channel sent it (null for agency and platform invites) */
    tenantId: text("tenant_id"),
    expiresAt: text("expires_at").notNull(),
    usedAt: timestamp("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("user_tokens_hash_uq").on(t.tokenHash), index("user_tokens_user_idx").on(t.userId, t.purpose)],
);

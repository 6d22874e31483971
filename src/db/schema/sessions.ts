import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp } from "./columns";
import { users } from "./identity";

/**
 * How a session is presented: `bearer`, a session JWT carrying the session's id (`sid`) for the API,
 * MCP and scripts; `cookie`, a random secret in an HttpOnly cookie for the account pages and the console.
 */
export const SESSION_KINDS = ["bearer", "cookie"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

/**
 * The door the person came in by. All but `saml` proved the account's password (an invite or reset
 * token proves the mailbox, then a password is set), so single sign-on enforcement treats them alike.
 */
export const SESSION_METHODS = ["password", "invite", "reset", "bootstrap", "saml"] as const;
export type SessionMethod = (typeof SESSION_METHODS)[number];

/** Why a session ended before its time (docs/sessions.md). */
export const SESSION_END_REASONS = [
  "logout",
  "logout_all",
  "password_reset",
  "password_changed",
  "deactivated",
] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/**
 * One row per sign-in (docs/sessions.md): the server-side record every session credential points at,
 * so a session can end before its token or cookie expires. No credential is stored here: a bearer
 * session's JWT is signed and only names the row; a cookie session keeps the SHA-256 of its cookie.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    kind: text("kind", { enum: SESSION_KINDS }).notNull(),
    method: text("method", { enum: SESSION_METHODS }).notNull(),
    /** the tenant whose identity provider signed the person in (method saml), else null */
    ssoTenantId: text("sso_tenant_id"),
    /** cookie sessions: SHA-256 (hex) of the cookie's value; null for bearer sessions */
    secretHash: text("secret_hash"),
    createdAt: createdAt(),
    /** the last request seen, to a few minutes (the idle lifetime counts from it) */
    lastSeenAt: timestamp("last_seen_at").notNull(),
    /** the absolute end, whatever the activity */
    expiresAt: timestamp("expires_at").notNull(),
    endedAt: timestamp("ended_at"),
    endReason: text("end_reason", { enum: SESSION_END_REASONS }),
  },
  (t) => [
    uniqueIndex("sessions_secret_hash_uq").on(t.secretHash),
    index("sessions_user_idx").on(t.userId, t.endedAt),
    index("sessions_expires_idx").on(t.expiresAt),
  ],
);

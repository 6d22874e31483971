import { PASSWORD_SIGN_IN, type SignIn } from "../identity/access";

/**
 * Who an MCP request acts as, resolved from the credential it carries (credentials.ts `identify`) on
 * every request; never stored, never sent to the client.
 */
export interface SessionIdentity {
  credential: "api_key" | "oauth" | "session_jwt";
  /** the tenant the session acts for (and whose limits it counts against) */
  tenantId: string;
  scopes: string[];
  keyId?: string;
  userId?: string;
  clientId?: string;
  /** the OAuth grant the access token belongs to (a refreshed token keeps it; a new consent is a new grant) */
  grantId?: string;
  /** an agency OAuth session: the tenantId input may name any tenant of the caller's agencies */
  agencySession: boolean;
  /** the user holds platform_admin now: platform-only tools are listed (each call checks again) */
  platformAdmin?: boolean;
  /**
   * How the user signed in, for a tenant's single sign-on enforcement: a session JWT's session method;
   * an OAuth grant was approved after the consent page's password sign-in. Absent: password.
   */
  signIn?: SignIn;
}

/**
 * The principal behind a credential, as one string: the same API key; the same user, OAuth client and
 * grant; for a session JWT the same user; always in the same tenant. Two credentials with the same
 * binding are the same caller (an OAuth access token and its refreshed successor, two JWTs of one user).
 * A session stores only a keyed hash of it (session-binding.ts).
 */
export const principalBinding = (i: SessionIdentity): string =>
  JSON.stringify(
    i.credential === "api_key"
      ? ["api_key", i.tenantId, i.keyId ?? null]
      : i.credential === "oauth"
        ? ["oauth", i.tenantId, i.userId ?? null, i.clientId ?? null, i.grantId ?? null, i.agencySession]
        : ["session_jwt", i.tenantId, i.userId ?? null],
  );

/** The user caller's sign-in, for re-reading their access on each call (identity/access.ts). */
export const callerSignIn = (identity: Pick<SessionIdentity, "signIn">): SignIn => identity.signIn ?? PASSWORD_SIGN_IN;

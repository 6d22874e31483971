import { PASSWORD_SIGN_IN, type SignIn } from "../identity/access";

/** Who an MCP session acts as. Kept in the session's Durable Object; never sent to the client. */
export interface SessionIdentity {
  credential: "api_key" | "oauth" | "session_jwt";
  /** the tenant the session acts for (and whose limits it counts against) */
  tenantId: string;
  scopes: string[];
  keyId?: string;
  userId?: string;
  clientId?: string;
  /** an agency OAuth session: the tenantId input may name any tenant of the caller's agencies */
  agencySession: boolean;
  /** the user holds platform_admin when the session opened: platform-only tools are listed (each call checks again) */
  platformAdmin?: boolean;
  /**
   * How the user signed in, for a tenant's single sign-on enforcement: a session JWT's session method;
   * an OAuth grant was approved after the consent page's password sign-in. Absent: password.
   */
  signIn?: SignIn;
}

/** The user caller's sign-in, for re-reading their access on each call (identity/access.ts). */
export const callerSignIn = (identity: Pick<SessionIdentity, "signIn">): SignIn => identity.signIn ?? PASSWORD_SIGN_IN;

/** The same caller behind two credentials (e.g. an OAuth access token and its refreshed successor). */
export const sameCaller = (a: SessionIdentity, b: SessionIdentity) =>
  a.credential === b.credential &&
  a.tenantId === b.tenantId &&
  a.keyId === b.keyId &&
  a.userId === b.userId &&
  a.clientId === b.clientId &&
  a.agencySession === b.agencySession;

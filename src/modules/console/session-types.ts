import type { UserPrincipal } from "../identity/access";

/** How the person proved who they are (the session model's `method`). */
export type SignInMethod = "password" | "invite" | "reset" | "saml";

/** The console's signed-in person (session.ts, the seam to the session model). */
export interface ConsoleSession {
  principal: UserPrincipal;
  /** the session's id: the CSRF token is derived from it */
  sessionId: string;
  method: SignInMethod;
}

import type { SessionMethod } from "../../db/schema";
import type { UserPrincipal } from "../identity/access";

/** How the person proved who they are (the session model's `method`). */
export type SignInMethod = SessionMethod;

/** The console's signed-in person: a live cookie session of the one session model (session.ts). */
export interface ConsoleSession {
  principal: UserPrincipal;
  /** the session's id: the CSRF token is derived from it */
  sessionId: string;
  method: SignInMethod;
}

import type { Env } from "../../env";

/** A connected app as the "your password was changed" mail names it: the OAuth client and the tenant it acts for. */
export interface ConnectedAppLine {
  clientName: string;
  tenantName: string | null;
}

/** auth -> oauth (a hook, src/hooks.ts: oauth signs people in through auth): a user's connected apps. */
export type ConnectedAppsLister = (env: Env, userId: string) => Promise<ConnectedAppLine[]>;

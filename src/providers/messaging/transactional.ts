import type { Db } from "../../db/client";
import { controlDb, tenantDb } from "../../db/shards";
import type { Env } from "../../env";
import { tenantWhiteLabel } from "../../modules/white-label/resolve";
import { brandedTransactional, type TransactionalEmail } from "./branded-email";
import { resolveProvider } from "./resolve";
import type { FetchLike, MessageProvider } from "./types";

let fetchOverride: FetchLike | undefined;

/** Tests point the providers of transactional mail at a local stand-in here; null restores the global fetch. */
export const useTransactionalFetch = (f: FetchLike | null) => {
  fetchOverride = f ?? undefined;
};

/**
 * The provider for the tenant's email channel (alerts, digests, SLA escalations, automation emails):
 * the tenant's EmailConfig, else the platform's provider, else the dev mailbox. Resolved at send time.
 * Never for account mail (invites, resets: anything carrying a credential or sign-in link), which a
 * tenant-configured transport would hand to that tenant's admins: that is account-mail.ts.
 */
export function emailProviderFor(db: Db, env: Env, tenantId: string | null): MessageProvider {
  return {
    name: "email",
    send: async (message) => (await resolveProvider(db, env, tenantId, "email", fetchOverride)).send(message),
  };
}

/**
 * A tenant's notification emails (escalations, automation emails) come from the product, so a white-labelled
 * tenant's go out under its white-label name with the brand's footer (docs/white-label.md).
 * Whoever calls (a control-plane flow or a tenant request), the tenant's email settings are read and
 * its dev-mailbox row written on the tenant's shard (both are tenant rows), the white label on the control
 * database (docs/scaling.md); mail of no tenant (an agency admin's invite) uses the control database.
 */
export async function sendTransactionalEmail(env: Env, email: TransactionalEmail) {
  const [wl, db] = await Promise.all([
    email.tenantId ? tenantWhiteLabel(controlDb(env), email.tenantId) : null,
    email.tenantId ? tenantDb(env, email.tenantId) : controlDb(env),
  ]);
  return emailProviderFor(db, env, email.tenantId).send(brandedTransactional(email, wl?.brand ?? null));
}

export { brandedTransactional, type TransactionalEmail };

import type { Db } from "../../db/client";
import type { Env } from "../../env";
import { resolveProvider } from "./resolve";
import type { MessageProvider } from "./types";

/**
 * The provider for the tenant's email channel (invites, password resets, SLA escalations):
 * the tenant's EmailConfig, else the platform's provider, else the outbox. Resolved at send time.
 */
export function emailProviderFor(db: Db, env: Env, tenantId: string | null): MessageProvider {
  return {
    name: "email",
    send: async (message) => (await resolveProvider(db, env, tenantId, "email")).send(message),
  };
}

export interface TransactionalEmail {
  tenantId: string | null;
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export async function sendTransactionalEmail(db: Db, env: Env, email: TransactionalEmail) {
  return emailProviderFor(db, env, email.tenantId).send({ ...email, channel: "email" });
}

import type { Db } from "../../db/client";
import type { Env } from "../../env";
import { OutboxProvider } from "./outbox";
import type { MessageProvider } from "./types";

/**
 * The provider for the tenant's email channel (invites, password resets, SLA escalations).
 * Today this is the outbox; [sending] resolves the tenant's EmailConfig with platform fallback here.
 */
export function emailProviderFor(db: Db, _env: Env, _tenantId: string | null): MessageProvider {
  return new OutboxProvider(db);
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

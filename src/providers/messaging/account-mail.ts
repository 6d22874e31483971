import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { isLocalEnvironment } from "../../lib/ssrf";
import { accountMailLook } from "../../modules/white-label/account-mail-look";
import { brandedTransactional } from "./branded-email";
import { DevMailboxProvider } from "./dev-mailbox";
import { createProvider } from "./factory";
import { platformChannelSettings } from "./platform";
import type { FetchLike, MessageProvider, SendReceipt } from "./types";

/**
 * Every kind of account mail: mail that carries a credential or a sign-in link (an invite token, a
 * reset token) or tells someone what their account can reach. It goes only through the platform's
 * own sender (PLATFORM_EMAIL_* settings), never a transport a tenant configured, because whoever
 * administers that transport would read it: a tenant admin could otherwise take over the platform
 * admin's account, or an admin of another tenant homed in theirs (docs/SECURITY.md, "Account mail").
 * Adding a kind here makes test/providers/messaging/account-mail.test.ts demand a flow that sends it.
 *
 * Not account mail: review alerts, digests, SLA escalations and automation emails are the tenant's
 * own notifications and go through its email channel (transactional.ts).
 */
export const ACCOUNT_MAIL_KINDS = ["invite", "access_granted", "password_reset", "password_changed"] as const;
export type AccountMailKind = (typeof ACCOUNT_MAIL_KINDS)[number];

export interface AccountMail {
  kind: AccountMailKind;
  /** the person it is for: their roles decide the brand it wears and the host of its links (accountMailLook) */
  userId: string;
  to: string;
  subject: string;
  /** the body, given the origin its links must use */
  text: (baseUrl: string) => string;
}

let fetchOverride: FetchLike | undefined;

/** Tests point the platform sender's HTTP providers at a local stand-in here; null restores the global fetch. */
export const useAccountMailFetch = (f: FetchLike | null) => {
  fetchOverride = f ?? undefined;
};

/**
 * The platform's own sender: the provider PLATFORM_EMAIL_PROVIDER names, with its PLATFORM_* settings
 * (docs/messaging.md); with none configured, the dev mailbox on the control database (the `outbox` provider,
 * read with GET /admin/outbox). Nothing here reads a tenant's messaging settings.
 */
export function platformEmailProvider(env: Env): MessageProvider {
  const settings = platformChannelSettings(env, "email");
  if (!settings) return new DevMailboxProvider(controlDb(env));
  return createProvider(settings, {
    fetch: fetchOverride,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    localEnvironment: isLocalEnvironment(env),
  });
}

/**
 * Sends one account mail through the platform sender. Its look, the brand (sender name and footer)
 * and the origin of its links, follows one rule over every role the person holds (`accountMailLook`,
 * white-label/account-mail-look.ts): a tenant's only when all of them lie in that tenant, an agency's
 * when all lie within that agency, else the platform's. No caller picks a brand. The address, reply-to
 * and transport are always the platform's; the message belongs to no tenant (tenantId null), so
 * provider status webhooks check the platform's keys.
 */
export async function sendAccountMail(env: Env, mail: AccountMail): Promise<SendReceipt> {
  const look = await accountMailLook(controlDb(env), env, mail.userId);
  const message = brandedTransactional(
    { tenantId: null, to: mail.to, subject: mail.subject, text: mail.text(look.baseUrl) },
    look.brand,
  );
  return platformEmailProvider(env).send({ ...message, headers: { ...message.headers, "X-Account-Mail": mail.kind } });
}

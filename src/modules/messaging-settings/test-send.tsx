import { eq } from "drizzle-orm";
import { tenants } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { renderHtml } from "../../lib/html";
import { nowIso } from "../../lib/time";
import { Email } from "../../lib/validators";
import { resolveChannel } from "../../providers/messaging/resolve";
import { type FetchLike, type OutgoingMessage, ProviderError } from "../../providers/messaging/types";
import type { TestSendInput } from "./schemas";

/*
 * A test message through the tenant's channel as it would send a review request (its own provider, the
 * platform's fallback, or the dev mailbox), to an address the caller gives, with fixed content: no
 * solicitation, no contact, nothing queued. Rate-limited per tenant and audited (docs/messaging.md,
 * "Test send").
 */

/** Test sends per tenant per window: enough to fix a setting and try again, too few to message a list. */
export const TEST_SEND_LIMIT = 10;
export const TEST_SEND_WINDOW_SECONDS = 3600;

/** The address as the audit log keeps it: enough to recognise, not the whole of it. */
export function maskAddress(to: string): string {
  const at = to.indexOf("@");
  if (at > 0) return `${to[0]}***${to.slice(at)}`;
  return `${to.slice(0, 3)}${"*".repeat(Math.max(0, to.length - 5))}${to.slice(-2)}`;
}

function testMessage(tenantId: string, name: string, input: TestSendInput): OutgoingMessage {
  const text = `This is a test message from ${name}: your ${input.channel} settings work.`;
  const base = { tenantId, channel: input.channel, to: input.to, solicitationId: null } as const;
  if (input.channel === "email")
    return {
      ...base,
      subject: `Test message from ${name}`,
      text,
      html: renderHtml(<p>{text}</p>),
    };
  if (input.channel === "whatsapp" && input.whatsappTemplate)
    return { ...base, text, whatsappTemplate: { ...input.whatsappTemplate, params: [] } };
  return { ...base, text };
}

async function takeRateSlot(ctx: ServiceContext) {
  const limiter = ctx.env.RATE_LIMITER.get(ctx.env.RATE_LIMITER.idFromName(`messaging-test:${ctx.tenantId}`));
  const decision = await limiter.hit(TEST_SEND_LIMIT, TEST_SEND_WINDOW_SECONDS);
  if (!decision.allowed)
    throw new ApiError(
      "RATE_LIMITED",
      `At most ${TEST_SEND_LIMIT} test messages per hour per business; try again later`,
      { retryAfter: decision.retryAfter },
      { "Retry-After": String(decision.retryAfter) },
    );
}

/** `fetch`: where a provider's requests go (a stand-in in tests); the real fetch otherwise. */
export async function sendTestMessage(ctx: ServiceContext, given: TestSendInput, deps: { fetch?: FetchLike } = {}) {
  // an email address as the service keeps every one: trimmed and lower-cased (docs/api.md)
  const input = given.channel === "email" ? { ...given, to: Email.parse(given.to) } : given;
  await takeRateSlot(ctx);
  const [tenant, { settings, provider }] = await Promise.all([
    ctx.control.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, ctx.tenantId)).get(),
    resolveChannel(ctx.db, ctx.env, ctx.tenantId, input.channel, deps.fetch),
  ]);
  const sentAt = nowIso();
  let receipt: { providerMessageId: string } | null = null;
  let error: { message: string; status: number | null; code: string | null; retryable: boolean } | null = null;
  try {
    receipt = await provider.send(testMessage(ctx.tenantId, tenant?.name ?? "your business", input));
  } catch (e) {
    // the answer a settings page shows; anything else (a bug, D1) is the 500 it is
    if (!(e instanceof ProviderError)) throw e;
    error = { message: e.message, status: e.status ?? null, code: e.code ?? null, retryable: e.retryable };
  }
  const result = {
    channel: input.channel,
    to: input.to,
    provider: provider.name,
    source: settings ? settings.source : ("dev_mailbox" as const),
    accepted: receipt !== null,
    providerMessageId: receipt?.providerMessageId ?? null,
    error,
    sentAt,
  };
  await commit(ctx, [
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "messaging.test_sent",
      resourceType: "messaging_settings",
      resourceId: `${ctx.tenantId}:${input.channel}`,
      nextState: { ...result, to: maskAddress(input.to) },
    }),
  ]);
  return result;
}

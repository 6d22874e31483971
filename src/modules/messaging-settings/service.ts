import { type ChannelConfig, type MessageChannel, type MessagingSettingsRow, messagingSettings } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { notFound, type ValidationIssue, validationError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { missingFields, providerSpec } from "../../providers/messaging/catalog";
import { findSettingsRow, openCredentials, sealCredentials } from "../../providers/messaging/settings-store";
import {
  type ProviderCredentialsInput,
  type PutEmailSettings,
  type PutSmsSettings,
  type PutWhatsAppSettings,
  toEmailSettings,
  toSmsSettings,
  toWhatsAppSettings,
} from "./schemas";

const NAMES: Record<MessageChannel, string> = {
  email: "Email settings",
  sms: "SMS settings",
  whatsapp: "WhatsApp settings",
};

export async function findSettings(ctx: ServiceContext, channel: MessageChannel): Promise<MessagingSettingsRow> {
  const row = await findSettingsRow(ctx.db, ctx.tenantId, channel);
  if (!row) throw notFound(NAMES[channel]);
  return row;
}

export const getEmailSettings = async (ctx: ServiceContext) => toEmailSettings(await findSettings(ctx, "email"));
export const getSmsSettings = async (ctx: ServiceContext) => toSmsSettings(await findSettings(ctx, "sms"));
export const getWhatsAppSettings = async (ctx: ServiceContext) =>
  toWhatsAppSettings(await findSettings(ctx, "whatsapp"));

interface ChannelWrite {
  provider: string;
  config: ChannelConfig;
  options: Record<string, unknown>;
  credentials?: ProviderCredentialsInput;
  fallbackToPlatform: boolean;
}

/** Options and credentials another provider would take are refused, so a typo never passes silently. */
function foreignFields(channel: MessageChannel, w: ChannelWrite): ValidationIssue[] {
  const spec = providerSpec(channel, w.provider)!;
  const allowedOptions = new Set([...spec.options.required, ...spec.options.optional]);
  const allowedCredentials = new Set([...spec.credentials.required, ...spec.credentials.optional]);
  return [
    ...Object.keys(w.options)
      .filter((k) => !allowedOptions.has(k))
      .map((k) => ({ path: `options.${k}`, message: `Not an option of ${w.provider}` })),
    ...Object.keys(w.credentials ?? {})
      .filter((k) => !allowedCredentials.has(k))
      .map((k) => ({ path: `credentials.${k}`, message: `Not a credential of ${w.provider}` })),
  ];
}

/** The stored credentials merged with the update: kept while the provider stays, dropped when it changes. */
async function mergedCredentials(ctx: ServiceContext, before: MessagingSettingsRow | undefined, w: ChannelWrite) {
  const kept = before && before.provider === w.provider ? await openCredentials(ctx.env, before.credentials) : {};
  for (const [k, v] of Object.entries(w.credentials ?? {})) {
    if (v === null) delete kept[k];
    else if (v !== undefined) kept[k] = v;
  }
  return kept;
}

async function putChannel(
  ctx: ServiceContext,
  channel: MessageChannel,
  w: ChannelWrite,
): Promise<MessagingSettingsRow> {
  const before = await findSettingsRow(ctx.db, ctx.tenantId, channel);
  const foreign = foreignFields(channel, w);
  if (foreign.length) throw validationError(foreign);
  const credentials = await mergedCredentials(ctx, before, w);
  // a tenant falling back to the platform may leave its own provider incomplete
  const missing = missingFields(channel, w.provider, { config: w.config, options: w.options, credentials });
  if (missing.length && !w.fallbackToPlatform) {
    throw validationError(missing.map((path) => ({ path, message: `Required for ${w.provider}` })));
  }

  const now = nowIso();
  const domainChanged =
    !before ||
    before.provider !== w.provider ||
    (before.config.senderDomain ?? null) !== (w.config.senderDomain ?? null);
  const row: MessagingSettingsRow = {
    tenantId: ctx.tenantId,
    channel,
    provider: w.provider,
    config: w.config,
    options: w.options,
    credentials: await sealCredentials(ctx.env, credentials),
    credentialFields: Object.keys(credentials).sort(),
    fallbackToPlatform: w.fallbackToPlatform,
    dkimStatus: domainChanged ? "pending" : before.dkimStatus,
    dmarcStatus: domainChanged ? "pending" : before.dmarcStatus,
    domainCheck: domainChanged ? null : before.domainCheck,
    createdAt: before?.createdAt ?? now,
    updatedAt: now,
  };
  const { tenantId: _t, channel: _c, createdAt: _ca, ...changes } = row;
  const publicView = (r: MessagingSettingsRow) => ({ ...r, credentials: undefined });
  await commit(ctx, [
    ctx.db
      .insert(messagingSettings)
      .values(row)
      .onConflictDoUpdate({ target: [messagingSettings.tenantId, messagingSettings.channel], set: changes }),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: `settings.${channel}.updated`,
      resourceType: "messaging_settings",
      resourceId: `${ctx.tenantId}:${channel}`,
      previousState: before ? publicView(before) : null,
      nextState: publicView(row),
      metadata: { credentialsChanged: Object.keys(w.credentials ?? {}).sort() },
    }),
  ]);
  return row;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1);

export async function putEmailSettings(ctx: ServiceContext, input: PutEmailSettings) {
  const config: ChannelConfig = {
    fromAddress: input.fromAddress,
    fromName: input.fromName,
    replyToAddress: input.replyToAddress ?? null,
    senderDomain: input.senderDomain === undefined ? domainOf(input.fromAddress) : input.senderDomain,
  };
  return toEmailSettings(await putChannel(ctx, "email", { ...input, config }));
}

export async function putSmsSettings(ctx: ServiceContext, input: PutSmsSettings) {
  return toSmsSettings(await putChannel(ctx, "sms", { ...input, config: { fromNumber: input.fromNumber ?? null } }));
}

export async function putWhatsAppSettings(ctx: ServiceContext, input: PutWhatsAppSettings) {
  const id = input.channelRegistrationId ?? null;
  if (id && input.provider === "twilio" && !/^\+[1-9]\d{6,14}$/.test(id)) {
    throw validationError([
      { path: "channelRegistrationId", message: "For twilio, the WhatsApp sender number in E.164, e.g. +15551234567" },
    ]);
  }
  if (id && input.provider === "meta" && !/^\d{5,32}$/.test(id)) {
    throw validationError([{ path: "channelRegistrationId", message: "For meta, the numeric phone number id" }]);
  }
  return toWhatsAppSettings(await putChannel(ctx, "whatsapp", { ...input, config: { channelRegistrationId: id } }));
}

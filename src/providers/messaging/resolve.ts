import type { Db, ShardDb } from "../../db/client";
import type { MessageChannel, MessagingSettingsRow } from "../../db/schema";
import { PLATFORM_TEMPLATE_SCOPE } from "../../db/schema";
import { controlDb } from "../../db/shards";
import type { Env } from "../../env";
import { isLocalEnvironment } from "../../lib/ssrf";
import { missingFields } from "./catalog";
import type { ChannelSettings } from "./channel-settings";
import { DevMailboxProvider } from "./dev-mailbox";
import { createProvider, type ProviderDeps } from "./factory";
import { platformChannelSettings } from "./platform";
import { findSettingsRow, findSettingsRows, toChannelSettings } from "./settings-store";
import { TemplateGuardedProvider } from "./template-guard";
import type { FetchLike, MessageProvider } from "./types";

/**
 * The settings a channel sends with: the tenant's own provider when it is complete; otherwise,
 * when the tenant has no settings or asked for fallbackToPlatform, the platform's; otherwise none
 * (the dev mailbox). Falling back keeps the tenant's display name and reply-to on the platform's sender.
 */
export async function resolveChannelSettings(
  db: Db,
  env: Env,
  tenantId: string | null,
  channel: MessageChannel,
): Promise<ChannelSettings | null> {
  return settingsFrom(env, tenantId ? await findSettingsRow(db, tenantId, channel) : undefined, channel);
}

/** resolveChannelSettings for a tenant's settings row already read (undefined: none stored). */
async function settingsFrom(
  env: Env,
  row: MessagingSettingsRow | undefined,
  channel: MessageChannel,
): Promise<ChannelSettings | null> {
  if (row) {
    const own = await toChannelSettings(env, row);
    if (missingFields(channel, own.provider, own).length === 0) return own;
    if (!row.fallbackToPlatform) return null;
  }
  const platform = platformChannelSettings(env, channel);
  if (!platform || !row || channel !== "email") return platform;
  return {
    ...platform,
    config: {
      ...platform.config,
      fromName: row.config.fromName || platform.config.fromName,
      replyToAddress: row.config.replyToAddress ?? platform.config.replyToAddress ?? null,
    },
  };
}

type ResolveDeps = Omit<ProviderDeps, "fetch" | "publicBaseUrl" | "localEnvironment">;

function providerFrom(
  db: Db,
  env: Env,
  settings: ChannelSettings | null,
  fetchImpl?: FetchLike,
  deps: ResolveDeps = {},
): MessageProvider {
  if (!settings) return new DevMailboxProvider(db);
  const provider = createProvider(settings, {
    ...deps,
    fetch: fetchImpl,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    localEnvironment: isLocalEnvironment(env),
    sendEmail: deps.sendEmail ?? env.EMAIL,
  });
  if (settings.channel !== "whatsapp") return provider;
  // the template's state as the provider last reported it: the tenant's own account's, on its shard,
  // or the platform account's, in the control database
  const store =
    settings.source === "tenant" && settings.tenantId
      ? { db, scope: settings.tenantId }
      : { db: controlDb(env), scope: PLATFORM_TEMPLATE_SCOPE };
  return new TemplateGuardedProvider(provider, store);
}

/** The provider for a tenant's channel (see resolveChannelSettings), or the dev mailbox when there is none. */
export async function resolveProvider(
  db: Db,
  env: Env,
  tenantId: string | null,
  channel: MessageChannel,
  fetchImpl?: FetchLike,
  deps: ResolveDeps = {},
): Promise<MessageProvider> {
  return (await resolveChannel(db, env, tenantId, channel, fetchImpl, deps)).provider;
}

/** resolveProvider with the settings it chose (null: the dev mailbox), for a caller that says whose they are. */
export async function resolveChannel(
  db: Db,
  env: Env,
  tenantId: string | null,
  channel: MessageChannel,
  fetchImpl?: FetchLike,
  deps: ResolveDeps = {},
): Promise<{ settings: ChannelSettings | null; provider: MessageProvider }> {
  const settings = await resolveChannelSettings(db, env, tenantId, channel);
  return { settings, provider: providerFrom(db, env, settings, fetchImpl, deps) };
}

/**
 * The providers of many tenants' channels (a queue batch from many tenants): one read for all their
 * settings. The channels that fall to the dev mailbox share one mailbox, so its writes go in one batch.
 */
export async function resolveProviders(
  db: ShardDb,
  env: Env,
  tenantIds: string[],
  fetchImpl?: FetchLike,
): Promise<(tenantId: string, channel: MessageChannel) => Promise<MessageProvider>> {
  const rows = await findSettingsRows(db, tenantIds);
  const mailbox = new DevMailboxProvider(db);
  const resolved = new Map<string, Promise<MessageProvider>>();
  return (tenantId, channel) => {
    const key = `${tenantId}:${channel}`;
    if (!resolved.has(key)) {
      const row = rows.find((r) => r.tenantId === tenantId && r.channel === channel);
      resolved.set(
        key,
        settingsFrom(env, row, channel).then((settings) =>
          settings ? providerFrom(db, env, settings, fetchImpl) : mailbox,
        ),
      );
    }
    return resolved.get(key)!;
  };
}

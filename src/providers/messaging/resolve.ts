import type { Db } from "../../db/client";
import type { MessageChannel } from "../../db/schema";
import type { Env } from "../../env";
import { missingFields } from "./catalog";
import type { ChannelSettings } from "./channel-settings";
import { createProvider, type ProviderDeps } from "./factory";
import { OutboxProvider } from "./outbox";
import { platformChannelSettings } from "./platform";
import { findSettingsRow, toChannelSettings } from "./settings-store";
import type { FetchLike, MessageProvider } from "./types";

/**
 * The settings a channel sends with: the tenant's own provider when it is complete; otherwise,
 * when the tenant has no settings or asked for fallbackToPlatform, the platform's; otherwise none
 * (the outbox). Falling back keeps the tenant's display name and reply-to on the platform's sender.
 */
export async function resolveChannelSettings(
  db: Db,
  env: Env,
  tenantId: string | null,
  channel: MessageChannel,
): Promise<ChannelSettings | null> {
  const row = tenantId ? await findSettingsRow(db, tenantId, channel) : undefined;
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

/** The provider for a tenant's channel (see resolveChannelSettings), or the outbox when there is none. */
export async function resolveProvider(
  db: Db,
  env: Env,
  tenantId: string | null,
  channel: MessageChannel,
  fetchImpl?: FetchLike,
  deps: Omit<ProviderDeps, "fetch" | "publicBaseUrl"> = {},
): Promise<MessageProvider> {
  const settings = await resolveChannelSettings(db, env, tenantId, channel);
  if (!settings) return new OutboxProvider(db);
  return createProvider(settings, { ...deps, fetch: fetchImpl, publicBaseUrl: env.PUBLIC_BASE_URL });
}

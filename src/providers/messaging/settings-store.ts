import { and, eq } from "drizzle-orm";
import type { Db, ShardDb } from "../../db/client";
import { type MessageChannel, type MessagingSettingsRow, messagingSettings } from "../../db/schema";
import type { Env } from "../../env";
import { openAtRest, sealAtRest } from "../../lib/crypto";
import { inJson } from "../../lib/sql";
import type { ChannelSettings } from "./channel-settings";

export async function sealCredentials(env: Env, credentials: Record<string, string>): Promise<string | null> {
  if (Object.keys(credentials).length === 0) return null;
  return sealAtRest(env, JSON.stringify(credentials), "Provider credentials");
}

export async function openCredentials(env: Env, sealed: string | null): Promise<Record<string, string>> {
  if (!sealed) return {};
  return JSON.parse(await openAtRest(env, sealed, "Provider credentials")) as Record<string, string>;
}

export async function findSettingsRow(
  db: Db,
  tenantId: string,
  channel: MessageChannel,
): Promise<MessagingSettingsRow | undefined> {
  return db
    .select()
    .from(messagingSettings)
    .where(and(eq(messagingSettings.tenantId, tenantId), eq(messagingSettings.channel, channel)))
    .get();
}

/** Every channel's settings of these tenants, in one read. */
export const findSettingsRows = (db: ShardDb, tenantIds: string[]): Promise<MessagingSettingsRow[]> =>
  tenantIds.length
    ? db.select().from(messagingSettings).where(inJson(messagingSettings.tenantId, tenantIds))
    : Promise.resolve([]);

export async function toChannelSettings(env: Env, row: MessagingSettingsRow): Promise<ChannelSettings> {
  return {
    channel: row.channel,
    provider: row.provider,
    source: "tenant",
    tenantId: row.tenantId,
    config: row.config,
    options: row.options,
    credentials: await openCredentials(env, row.credentials),
  };
}

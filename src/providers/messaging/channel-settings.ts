import type { ChannelConfig, MessageChannel } from "../../db/schema";

/** A channel's provider with its decrypted credentials, from the tenant's settings or the platform's env. */
export interface ChannelSettings {
  channel: MessageChannel;
  provider: string;
  source: "tenant" | "platform";
  /** the tenant whose settings these are (null for the platform's) */
  tenantId: string | null;
  config: ChannelConfig;
  options: Record<string, unknown>;
  credentials: Record<string, string>;
}

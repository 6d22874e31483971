import type { EventHandler } from "../../background/events";
import type { ShardConsumer } from "../../background/shards";
import { consumeWebhookDeliveries } from "./delivery";
import { fanOutEvent, subscribedEvents } from "./fanout";

export const webhookFanOutHandler: EventHandler = {
  name: "webhooks",
  select: subscribedEvents,
  handle: async (event, env, shard) => void (await fanOutEvent(event, env, shard)),
};
export const webhookDeliveryConsumer: ShardConsumer = (batch, env, shard) =>
  consumeWebhookDeliveries(batch, env, shard);

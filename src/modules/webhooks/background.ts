import type { EventHandler } from "../../background/events";
import type { QueueConsumer } from "../../background/queue";
import { consumeWebhookDeliveries } from "./delivery";
import { fanOutEvent, subscribedEvents } from "./fanout";

export const webhookFanOutHandler: EventHandler = { name: "webhooks", select: subscribedEvents, handle: async (event, env) => void (await fanOutEvent(event, env)) };
export const webhookDeliveryConsumer: QueueConsumer = (batch, env) => consumeWebhookDeliveries(batch, env);

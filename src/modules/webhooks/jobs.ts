import { registerEventHandler } from "../../jobs/events";
import { registerQueueConsumer } from "../../jobs/queue";
import { consumeWebhookDeliveries } from "./delivery";
import { fanOutEvent, subscribedEvents } from "./fanout";

registerEventHandler({ name: "webhooks", select: subscribedEvents, handle: async (event, env) => void (await fanOutEvent(event, env)) });
registerQueueConsumer("webhooks", (batch, env) => consumeWebhookDeliveries(batch, env));

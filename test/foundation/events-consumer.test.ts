import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { registerEventHandler } from "../../src/jobs/events";
import type { EventEnvelope } from "../../src/lib/events";

const calls: string[] = [];
let flakyFailuresLeft = 1;
registerEventHandler({ name: "test-steady", handle: async (e) => void calls.push(`steady:${e.id}`) });
registerEventHandler({
  name: "test-flaky",
  handle: async (e) => {
    if (flakyFailuresLeft-- > 0) throw new Error("transient");
    calls.push(`flaky:${e.id}`);
  },
});

const event = (id: string): EventEnvelope => ({ id, type: "review.created", tenantId: "t1", occurredAt: new Date().toISOString(), data: { reviewId: "r1" } });

async function deliver(id: string, attempts = 1) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch("events", [{ id: `msg-${id}-${attempts}`, timestamp: new Date(), attempts, body: event(id) }]);
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

describe("EVENTS consumer", () => {
  it("runs every handler, retries the message when one fails, and re-runs only the failed one", async () => {
    const first = await deliver("evt_1");
    expect(first.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual(["msg-evt_1-1"]);
    expect(calls).toEqual(["steady:evt_1"]);

    const second = await deliver("evt_1", 2);
    expect(second.explicitAcks).toEqual(["msg-evt_1-2"]);
    expect(calls).toEqual(["steady:evt_1", "flaky:evt_1"]);

    const third = await deliver("evt_1", 3);
    expect(third.explicitAcks).toEqual(["msg-evt_1-3"]);
    expect(calls).toHaveLength(2);
  });
});

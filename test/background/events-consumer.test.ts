import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { EventHandler } from "../../src/background/events";
import type { EventEnvelope } from "../../src/lib/events";
import { EVENT_HANDLERS, queueConsumers, WIRING } from "../../src/wiring";
import { createWorker } from "../../src/worker";

const calls: string[] = [];
let flakyFailuresLeft = 1;
const steady: EventHandler = { name: "test-steady", handle: async (e) => void calls.push(`steady:${e.id}`) };
const flaky: EventHandler = {
  name: "test-flaky",
  handle: async (e) => {
    if (flakyFailuresLeft-- > 0) throw new Error("transient");
    calls.push(`flaky:${e.id}`);
  },
};

const batches: string[][] = [];
let selectReads = 0;
let batchFailuresLeft = 0;
const batched: EventHandler = {
  name: "test-batched",
  // only tenant t2's events concern it, decided by one read for the whole batch
  select: async () => {
    selectReads++;
    return (e) => e.tenantId === "t2";
  },
  handleBatch: async (events) => {
    if (batchFailuresLeft-- > 0) throw new Error("transient");
    batches.push(events.map((e) => e.id));
  },
};

// the real wiring plus the three test handlers
const worker = createWorker({ ...WIRING, queues: queueConsumers([...EVENT_HANDLERS, steady, flaky, batched]) });

const event = (id: string, tenantId = "t1"): EventEnvelope => ({
  id,
  type: "review.created",
  tenantId,
  occurredAt: new Date().toISOString(),
  data: { reviewId: "r1" },
});

async function deliver(id: string, attempts = 1) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch("events", [
    { id: `msg-${id}-${attempts}`, timestamp: new Date(), attempts, body: event(id) },
  ]);
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

  it("a batched handler reads once per batch, sees only the events it selected, and is retried as a whole", async () => {
    const deliverMany = async (ids: [string, string][], attempts = 1) => {
      const ctx = createExecutionContext();
      const batch = createMessageBatch(
        "events",
        ids.map(([id, tenant]) => ({
          id: `m-${id}-${attempts}`,
          timestamp: new Date(),
          attempts,
          body: event(id, tenant),
        })),
      );
      await worker.queue(batch, env, ctx);
      return getQueueResult(batch, ctx);
    };
    const reads = selectReads;
    batchFailuresLeft = 1;
    const first = await deliverMany([
      ["b1", "t2"],
      ["b2", "t1"],
      ["b3", "t2"],
    ]);
    expect(selectReads - reads).toBe(1);
    expect(batches).toEqual([]);
    // b2 concerns no batched handler, and the others succeeded for it: acked; b1 and b3 retried
    expect(first.explicitAcks).toEqual(["m-b2-1"]);
    expect(first.retryMessages.map((m: { msgId: string }) => m.msgId).sort()).toEqual(["m-b1-1", "m-b3-1"]);

    const second = await deliverMany(
      [
        ["b1", "t2"],
        ["b3", "t2"],
      ],
      2,
    );
    expect(batches).toEqual([["b1", "b3"]]);
    expect(second.explicitAcks.sort()).toEqual(["m-b1-2", "m-b3-2"]);

    await deliverMany([["b1", "t2"]], 3);
    expect(batches).toHaveLength(1);
  });
});

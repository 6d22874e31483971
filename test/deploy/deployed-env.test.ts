import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { deadLetters } from "../../src/db/schema";
import worker from "../../src/index";
import { allowInsecureWebhooks, checkOutboundUrl } from "../../src/lib/ssrf";

// Deployed environments (wrangler.toml [env.staging] / [env.production]) name their queues
// "<worker>-<queue>" and set QUEUE_PREFIX; consumers are registered under the local names.
describe("queues of a deployed environment", () => {
  it("dispatches a prefixed queue's batch to the consumer registered under the local name", async () => {
    const deployed = { ...env, ENVIRONMENT: "production", QUEUE_PREFIX: "reputation-ops-" };
    const body = { solicitationId: "sol_prefixed_queue" };
    const batch = createMessageBatch("reputation-ops-dead-letter", [{ id: "msg-prefixed-1", timestamp: new Date(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, deployed, ctx);
    const result = await getQueueResult(batch, ctx);

    expect(result.ackAll).toBe(true);
    const rows = await createDb(env.DB).select().from(deadLetters).where(eq(deadLetters.messageId, "msg-prefixed-1")).all();
    expect(rows.map((r) => [r.queue, r.body])).toEqual([["sends", body]]);
  });

  it("without the prefix configured, a prefixed queue has no consumer: the batch throws (retried, then dead-lettered), nothing is acked", async () => {
    const batch = createMessageBatch("reputation-ops-dead-letter", [{ id: "msg-unprefixed-1", timestamp: new Date(), attempts: 1, body: {} }]);
    const ctx = createExecutionContext();
    await expect(worker.queue(batch, env, ctx)).rejects.toThrow("no consumer for queue reputation-ops-dead-letter");
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.ackAll).toBe(false);
  });
});

describe("dev-only stand-ins in deployed environments", () => {
  it("ALLOW_INSECURE_WEBHOOKS opens loopback http targets locally, and is ignored in staging and production", () => {
    const url = "http://127.0.0.1:9999/hook";
    expect(allowInsecureWebhooks({ ALLOW_INSECURE_WEBHOOKS: "true", ENVIRONMENT: "development" })).toBe(true);
    expect(checkOutboundUrl(url, { allowInsecure: allowInsecureWebhooks({ ALLOW_INSECURE_WEBHOOKS: "true", ENVIRONMENT: "test" }) }).ok).toBe(true);
    for (const ENVIRONMENT of ["staging", "production"]) {
      const allow = allowInsecureWebhooks({ ALLOW_INSECURE_WEBHOOKS: "true", ENVIRONMENT });
      expect(allow).toBe(false);
      expect(checkOutboundUrl(url, { allowInsecure: allow })).toEqual({ ok: false, reason: "only https URLs are allowed" });
    }
  });
});

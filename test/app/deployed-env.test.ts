import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { deadLetters } from "../../src/db/schema";
import worker from "../../src/index";
import { allowInsecureWebhooks, checkOutboundUrl, isLocalEnvironment } from "../../src/lib/ssrf";
import { seedTenant, seedUser } from "../helpers/seed";

// Deployed environments (wrangler.toml [env.staging] / [env.production]) name their queues
// "<worker>-<queue>" and set QUEUE_PREFIX; consumers are registered under the local names.
describe("queues of a deployed environment", () => {
  it("dispatches a prefixed queue's batch to the consumer registered under the local name", async () => {
    const deployed = { ...env, ENVIRONMENT: "production", QUEUE_PREFIX: "reputation-ops-" };
    const body = { solicitationId: "sol_prefixed_queue" };
    const batch = createMessageBatch("reputation-ops-dead-letter", [
      { id: "msg-prefixed-1", timestamp: new Date(), attempts: 1, body },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, deployed, ctx);
    const result = await getQueueResult(batch, ctx);

    expect(result.ackAll).toBe(true);
    const rows = await createDb(env.DB)
      .select()
      .from(deadLetters)
      .where(eq(deadLetters.messageId, "msg-prefixed-1"))
      .all();
    expect(rows.map((r) => [r.queue, r.body])).toEqual([["sends", body]]);
  });

  it("without the prefix configured, a prefixed queue has no consumer: the batch throws (retried, then dead-lettered), nothing is acked", async () => {
    const batch = createMessageBatch("reputation-ops-dead-letter", [
      { id: "msg-unprefixed-1", timestamp: new Date(), attempts: 1, body: {} },
    ]);
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
    expect(
      checkOutboundUrl(url, {
        allowInsecure: allowInsecureWebhooks({ ALLOW_INSECURE_WEBHOOKS: "true", ENVIRONMENT: "test" }),
      }).ok,
    ).toBe(true);
    for (const ENVIRONMENT of ["staging", "production"]) {
      const allow = allowInsecureWebhooks({ ALLOW_INSECURE_WEBHOOKS: "true", ENVIRONMENT });
      expect(allow).toBe(false);
      expect(checkOutboundUrl(url, { allowInsecure: allow })).toEqual({
        ok: false,
        reason: "only https URLs are allowed",
      });
    }
  });
});

describe("sandbox integrations' base URLs", () => {
  /** POST /v1/integrations through the Worker's fetch handler with ENVIRONMENT set as given. */
  async function createSandbox(ENVIRONMENT: string, apiBaseUrl: string) {
    const tenant = await seedTenant();
    const admin = await seedUser({
      grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: tenant.id }],
      tenantId: tenant.id,
    });
    const req = new Request("http://localhost:8787/v1/integrations", {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "x-tenant-id": tenant.id, "content-type": "application/json" },
      body: JSON.stringify({
        connectorType: "hubspot",
        name: "h",
        isSandbox: true,
        config: { apiBaseUrl },
        credentials: { accessToken: "t" },
      }),
    });
    const res = await worker.fetch(req as never, { ...env, ENVIRONMENT } as never, createExecutionContext());
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it("may be plain http or loopback only in a local environment (the one rule ALLOW_INSECURE_WEBHOOKS also follows)", async () => {
    for (const ENVIRONMENT of ["development", "test"]) {
      expect(isLocalEnvironment({ ENVIRONMENT })).toBe(true);
      expect((await createSandbox(ENVIRONMENT, "http://127.0.0.1:9999")).status).toBe(201);
    }
    // deployed, and anything not named as local (a typo, a new environment): https to a public host only
    for (const ENVIRONMENT of ["staging", "production", "prod"]) {
      expect(isLocalEnvironment({ ENVIRONMENT })).toBe(false);
      for (const apiBaseUrl of ["http://127.0.0.1:9999", "https://localhost:9999", "http://hubspot.stand-in.test"]) {
        const refused = await createSandbox(ENVIRONMENT, apiBaseUrl);
        expect(refused.status, `${ENVIRONMENT} ${apiBaseUrl}`).toBe(400);
        expect(refused.body.code).toBe("VALIDATION_ERROR");
        expect(refused.body.details.issues.map((i: { path: string }) => i.path)).toEqual(["config.apiBaseUrl"]);
      }
      expect((await createSandbox(ENVIRONMENT, "https://hubspot.stand-in.test")).status).toBe(201);
    }
  });
});

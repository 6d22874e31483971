import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { auditEvents, integrations } from "../../src/db/schema";
import { consumeReviewSync, scheduleDueSyncs, type ReviewSyncJob } from "../../src/modules/reviews/sync";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation } from "./helpers";
import { graphStandIn } from "./site-standins";

// Review sites' rules (docs/reviews.md, "Providers' rules"), against stand-ins that speak them.
let w: World;
let loc: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
});

async function connect(body: Record<string, unknown>) {
  const res = await w.as("tenantAdmin").post("/v1/integrations", { locationId: loc.id, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function sync(integrationId: string, fetchFn: typeof fetch) {
  const body: ReviewSyncJob = { tenantId: w.tenantA.id, integrationId, cursor: null, since: null, startedAt: new Date().toISOString() };
  const batch = createMessageBatch("review-sync", [{ id: `m-${Math.random()}`, timestamp: new Date(), attempts: 1, body }]);
  const retry = vi.spyOn(batch.messages[0]!, "retry");
  const ctx = createExecutionContext();
  await consumeReviewSync(batch, env, { fetch: fetchFn });
  return { ...(await getQueueResult(batch, ctx)), delays: retry.mock.calls.map(([o]) => o?.delaySeconds) };
}

const row = async (id: string) => (await db().select().from(integrations).where(eq(integrations.id, id)))[0]!;

describe("Facebook: a Graph API deprecation marks the integration as needing attention", () => {
  it("error 12 on v22: needsAttention with the site's message, not retried, not polled again; an edit clears it", async () => {
    const fb = await connect({ connectorType: "facebook", name: "FB v22", config: { pageId: "page-22", graphVersion: "v22.0" }, credentials: { pageAccessToken: "fb-token" } });
    const graph = graphStandIn({ token: "fb-token" });
    const result = await sync(fb.id, graph.fetch);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    const got = await w.as("viewer").get(`/v1/integrations/${fb.id}`);
    expect(got.body).toMatchObject({
      needsAttention: true, lastSyncStatus: "error",
      attention: { code: "facebook_api_deprecated", message: expect.stringContaining("Graph error 12: (#12) recommendation_type field is deprecated for versions v22.0 and higher") },
    });
    const audits = await db().select().from(auditEvents).where(and(eq(auditEvents.resourceId, fb.id), eq(auditEvents.action, "integration.needs_attention")));
    expect(audits).toHaveLength(1);
    // a redelivery records nothing new
    await sync(fb.id, graph.fetch);
    expect(await db().select().from(auditEvents).where(and(eq(auditEvents.resourceId, fb.id), eq(auditEvents.action, "integration.needs_attention")))).toHaveLength(1);

    // the periodic sweep leaves it alone
    await db().update(integrations).set({ syncRequestedAt: null }).where(eq(integrations.id, fb.id));
    const sent: unknown[] = [];
    await scheduleDueSyncs({ ...env, REVIEW_SYNC: { sendBatch: async (b: unknown[]) => void sent.push(...b) } as unknown as Queue }, new Date());
    expect(sent.map((m) => (m as { body: ReviewSyncJob }).body.integrationId)).not.toContain(fb.id);

    // the person fixes the version: attention cleared, the next sync works
    const fixed = await w.as("tenantAdmin").patch(`/v1/integrations/${fb.id}`, { config: { pageId: "page-22", graphVersion: "v21.0" } });
    expect(fixed.body).toMatchObject({ needsAttention: false, attention: null });
    await sync(fb.id, graph.fetch);
    expect(await row(fb.id)).toMatchObject({ lastSyncStatus: "ok", attentionCode: null });
  });

  it("an expired token (190) is token_invalid", async () => {
    const fb = await connect({ connectorType: "facebook", name: "FB old token", config: { pageId: "page-1" }, credentials: { pageAccessToken: "stale" } });
    await sync(fb.id, graphStandIn({ token: "fresh" }).fetch);
    expect((await w.as("viewer").get(`/v1/integrations/${fb.id}`)).body.attention).toMatchObject({ code: "token_invalid" });
  });
});

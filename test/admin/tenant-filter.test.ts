import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, deadLetters, outboxMessages, webhookDeliveries } from "../../src/db/schema";
import { controlDb, shardDb } from "../../src/db/shards";
import { newId } from "../../src/lib/ids";
import { setWebhookFetch } from "../../src/modules/outgoing-webhooks/transport";
import { endpoint } from "../automation/helpers";
import { createWorld, type World } from "../helpers/seed";
import { fetchWithEnv, initializeBody, mintTestKey, rawPost } from "../mcp/helpers";

/**
 * A tenant's rows live on its shard only, control-plane flows included (docs/scaling.md), so the
 * platform admin's lists filtered by a tenant read that tenant's shard and nothing else.
 */
let w: World;
beforeAll(async () => {
  // tenant A on shard 1 (its own database), tenant B on shard 0 (the control database)
  w = await createWorld({ shardA: 1, shardB: 0 });
});
afterAll(() => setWebhookFetch());

const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

/** Audit rows of this tenant and action, per database. */
async function auditRows(tenantId: string, action: string) {
  const where = and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, action));
  const [control, shard1] = await Promise.all(
    [controlDb(env), shardDb(env, 1)].map((db) => db.select().from(auditEvents).where(where)),
  );
  return { control: control!, shard1: shard1! };
}

describe("/admin lists filtered by a tenant", () => {
  it("read the tenant's shard only: a row of a shard-1 tenant left on the control database is not listed", async () => {
    const action = `filter.${newId()}`;
    const to = `${newId()}@example.test`;
    const audit = (tenantId: string, i: number) => ({
      id: newId(),
      tenantId,
      actorType: "system" as const,
      action,
      resourceType: "test",
      resourceId: String(i),
      occurredAt: at(i),
    });
    const mail = (tenantId: string, i: number) => ({
      id: `outbox_${newId()}`,
      tenantId,
      channel: "email" as const,
      to,
      subject: `s${i}`,
      createdAt: at(i),
    });
    const [onShard, stray, ofB] = [audit(w.tenantA.id, 1), audit(w.tenantA.id, 2), audit(w.tenantB.id, 3)];
    const [mailOnShard, strayMail, mailOfB] = [mail(w.tenantA.id, 1), mail(w.tenantA.id, 2), mail(w.tenantB.id, 3)];
    await shardDb(env, 1).batch([
      shardDb(env, 1).insert(auditEvents).values(onShard),
      shardDb(env, 1).insert(outboxMessages).values(mailOnShard),
    ]);
    // rows no code path writes any more (a shard-1 tenant's rows on the control database)
    await controlDb(env).batch([
      controlDb(env).insert(auditEvents).values([stray, ofB]),
      controlDb(env).insert(outboxMessages).values([strayMail, mailOfB]),
    ]);

    const admin = w.as("platformAdmin");
    const a = await admin.get(`/admin/audit-events?tenantId=${w.tenantA.id}&action=${action}`);
    expect([a.status, ids(a), a.body.total]).toEqual([200, [onShard.id], 1]);
    const b = await admin.get(`/admin/audit-events?tenantId=${w.tenantB.id}&action=${action}`);
    expect(ids(b)).toEqual([ofB.id]);
    const outboxOf = async (tenantId: string) =>
      ids(await admin.get(`/admin/outbox?tenantId=${tenantId}&limit=200`)).filter((id) =>
        [mailOnShard.id, strayMail.id, mailOfB.id].includes(id),
      );
    expect(await outboxOf(w.tenantA.id)).toEqual([mailOnShard.id]);
    expect(await outboxOf(w.tenantB.id)).toEqual([mailOfB.id]);
    // unfiltered, every shard is read: the stray row is still there for an operator to see
    const all = await admin.get(`/admin/audit-events?action=${action}&limit=200`);
    expect(ids(all)).toEqual([ofB.id, stray.id, onShard.id]);
  });
});

describe("control-plane writers of a shard-1 tenant's audit rows", () => {
  it("a throttled MCP tool call is audited on the tenant's shard", async () => {
    const limited = fetchWithEnv({ MCP_RATE_LIMIT: "1" });
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const init = await rawPost(initializeBody(), { authorization: `Bearer ${key.token}` }, limited);
    expect(init.status).toBe(200);
    const sessionId = init.headers.get("mcp-session-id")!;
    const over = await rawPost(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "location.list", arguments: { limit: 1 } } },
      { "mcp-session-id": sessionId, authorization: `Bearer ${key.token}` },
      limited,
    );
    expect(over.status).toBe(429);
    const rows = await auditRows(w.tenantA.id, "mcp.tool_called");
    expect(rows.control).toEqual([]);
    expect(rows.shard1.filter((r) => r.actorId === key.keyId).map((r) => [r.resourceId, r.metadata?.outcome])).toEqual([
      ["location.list", "throttled"],
    ]);
  });

  it("an MCP tool call that ran is audited on the tenant's shard, not on the control database", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const init = await rawPost(initializeBody(), { authorization: `Bearer ${key.token}` });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get("mcp-session-id")!;
    const call = await rawPost(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "location.list", arguments: { limit: 1 } } },
      { "mcp-session-id": sessionId, authorization: `Bearer ${key.token}` },
    );
    expect(call.status).toBe(200);
    const rows = await auditRows(w.tenantA.id, "mcp.tool_called");
    expect(rows.control).toEqual([]);
    expect(
      rows.shard1.filter((r) => r.actorId === key.keyId && r.metadata?.outcome === "success").map((r) => r.resourceId),
    ).toEqual(["location.list"]);
  });

  it("a platform admin's replay of a shard-1 tenant's dead webhook delivery is audited on the tenant's shard", async () => {
    setWebhookFetch(endpoint().fetch);
    const sub = await w
      .as("tenantAdmin")
      .post("/v1/webhooks", { url: "https://hooks.example.com/replayed", events: ["review.created"] });
    expect(sub.status).toBe(201);
    const delivery = {
      id: `whd_${newId()}`,
      tenantId: w.tenantA.id,
      subscriptionId: sub.body.id,
      messageId: `msg_${newId()}`,
      eventId: `evt_${newId()}`,
      eventType: "review.created",
      payload: "{}",
      status: "failed" as const,
      attempts: 8,
      error: "HTTP 503",
      createdAt: at(10),
      updatedAt: at(10),
    };
    await shardDb(env, 1).insert(webhookDeliveries).values(delivery);
    const dead = {
      id: newId(),
      queue: "webhooks",
      messageId: `webhook-delivery:${delivery.id}`,
      attempts: 8,
      createdAt: at(11),
      body: { tenantId: w.tenantA.id, deliveryId: delivery.id, subscriptionId: sub.body.id, error: "HTTP 503" },
    };
    await controlDb(env).insert(deadLetters).values(dead);

    const replayed = await w.as("platformAdmin").post(`/admin/dead-letters/${dead.id}/replay`);
    expect(replayed.status).toBe(202);
    const rows = await auditRows(w.tenantA.id, "dead_letter.replayed");
    expect(rows.control).toEqual([]);
    expect(rows.shard1.map((r) => [r.resourceId, r.actorType, r.metadata?.deliveryId])).toEqual([
      [dead.id, "platform_admin", replayed.body.deliveryId],
    ]);
    // the dead letter (a control row) is gone
    expect(await controlDb(env).select().from(deadLetters).where(eq(deadLetters.id, dead.id))).toEqual([]);
    const listed = await w
      .as("platformAdmin")
      .get(`/admin/audit-events?tenantId=${w.tenantA.id}&action=dead_letter.replayed`);
    expect(ids(listed)).toEqual([rows.shard1[0]!.id]);
  });
});

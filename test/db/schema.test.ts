import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { deadLetters, webhookDeliveries } from "../../src/db/schema";
import * as controlSet from "../../src/db/schema-sets/control";
import * as tenantSet from "../../src/db/schema-sets/tenant";
import { CONTROL_TABLES, controlDb, MIRRORED_TABLES, shardD1, shardDb } from "../../src/db/shards";
import { tenantTables } from "../../src/db/tenant-move";
import { processDelivery } from "../../src/modules/outgoing-webhooks/delivery";
import { fanOutEvent } from "../../src/modules/outgoing-webhooks/fanout";
import { MAX_ATTEMPTS } from "../../src/modules/outgoing-webhooks/schedule";
import { endpoint, event } from "../automation/helpers";
import { createWorld } from "../helpers/seed";

// Two migration folders (docs/scaling.md): the test pool applies them as `npm run db:migrate` does
// (test/setup/apply-migrations.ts), so these are the databases `npm run dev` works on.
const names = (mod: Record<string, unknown>) =>
  Object.values(mod)
    .filter((v): v is SQLiteTable => v instanceof SQLiteTable)
    .map((t) => getTableConfig(t).name)
    .sort();
const TENANT = names(tenantSet);
const CONTROL = names(controlSet);

async function tablesOf(d1: D1Database) {
  const r = await d1
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' and name not like 'sqlite%' order by name",
    )
    .all<{ name: string }>();
  return r.results.map((t) => t.name);
}

describe("schema per database", () => {
  it("shard 1 carries the tenant folder only: no control-only table; the control database (shard 0) carries both folders", async () => {
    const shard1 = await tablesOf(shardD1(env, 1));
    const control = await tablesOf(env.DB);
    expect(shard1).toEqual([...TENANT, "d1_migrations_tenant"].sort());
    expect(control).toEqual([...TENANT, ...CONTROL, "d1_migrations_control", "d1_migrations_tenant"].sort());
    const controlOnly = [...CONTROL_TABLES].filter((t) => !MIRRORED_TABLES.has(t));
    expect(controlOnly.length).toBeGreaterThan(8);
    for (const t of controlOnly) {
      expect(shard1, t).not.toContain(t);
      expect(control, t).toContain(t);
    }
    // the directory mirrors tenant rows reference by foreign key are on both
    for (const t of MIRRORED_TABLES) expect(shard1, t).toContain(t);
    // SHARD_0 is the control database itself
    expect(await tablesOf(shardD1(env, 0))).toEqual(control);
  });

  it("the move finds the same tenant-owned tables on a shard with control tables (0) and on one without (1)", async () => {
    const on0 = (await tenantTables(shardD1(env, 0))).map((t) => t.name).sort();
    const on1 = (await tenantTables(shardD1(env, 1))).map((t) => t.name).sort();
    expect(on1).toEqual(on0);
    expect(on0.filter((t) => CONTROL_TABLES.has(t))).toEqual([]);
    // every tenant-set table with a tenant_id, mirrors aside (the move copies rows of the tenant, not the directory)
    expect(on0).toContain("contacts");
    expect(on0).toContain("contact_counts");
    expect(on0.length).toBeGreaterThan(50);
    expect(on0.every((t) => TENANT.includes(t))).toBe(true);
  });

  it("a webhook delivery failing for good on shard 1 is dead-lettered on the control plane (shards have no dead_letters)", async () => {
    const w = await createWorld({ shardA: 1 });
    const created = await w
      .as("tenantAdmin")
      .post("/v1/webhooks", { url: "https://hooks.example.com/shard-1", events: ["contact.suppressed"] });
    expect(created.status).toBe(201);
    const sent: { tenantId: string; deliveryId: string }[] = [];
    await fanOutEvent(
      event(w.tenantA.id, "contact.suppressed", {
        contactId: "c1",
        suppressedAt: "2026-01-01T00:00:00Z",
        reason: null,
      }),
      env,
      shardDb(env, 1),
      {
        sendBatch: async (m: { body: { tenantId: string; deliveryId: string } }[]) =>
          void sent.push(...m.map((x) => x.body)),
      },
    );
    expect(sent).toHaveLength(1);
    const msg = sent[0]!;
    // the delivery lives on shard 1; its last attempt is next
    const shard1 = shardDb(env, 1);
    await shard1
      .update(webhookDeliveries)
      .set({ attempts: MAX_ATTEMPTS - 1 })
      .where(eq(webhookDeliveries.id, msg.deliveryId));
    const down = endpoint(() => new Response("upstream down", { status: 503 }));

    const result = await processDelivery(env, shardDb(env, 1), msg, { fetch: down.fetch });

    expect(result.outcome).toBe("failed");
    expect(down.calls).toHaveLength(1);
    expect(
      await shard1
        .select({ status: webhookDeliveries.status, attempts: webhookDeliveries.attempts })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.id, msg.deliveryId))
        .get(),
    ).toEqual({ status: "failed", attempts: MAX_ATTEMPTS });
    const dead = await controlDb(env)
      .select()
      .from(deadLetters)
      .where(eq(deadLetters.messageId, `webhook-delivery:${msg.deliveryId}`));
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      queue: "webhooks",
      attempts: MAX_ATTEMPTS,
      body: { tenantId: w.tenantA.id, deliveryId: msg.deliveryId, error: "HTTP 503" },
    });
  });
});

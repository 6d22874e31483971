import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { EventHandler } from "../../src/background/events";
import { shardD1 } from "../../src/db/shards";
import type { EventEnvelope } from "../../src/lib/events";
import { newId } from "../../src/lib/ids";
import { EVENT_HANDLERS, queueConsumers, WIRING } from "../../src/wiring";
import { createWorker } from "../../src/worker";
import { createWorld } from "../helpers/seed";
import {
  approvedTemplate,
  newContact,
  newLocation,
  noQuietHours,
  pendingRow,
  runSends,
} from "../solicitations/helpers";
import { moveInline, rowsOn } from "./tenant-move-helpers";

// A move carries every table with tenant_id (src/db/tenant-move.ts). The send claims (send_records) and the
// handlers' ledger (processed_events) had none, so they stayed on the source: on the target, a redelivered
// event ran every handler again and a claimed send looked unclaimed (docs/scaling.md, Moving a tenant).

const calls: string[] = [];
const counting: EventHandler = { name: "test-counting", handle: async (e) => void calls.push(e.id) };
const worker = createWorker({ ...WIRING, queues: queueConsumers([...EVENT_HANDLERS, counting]) });

async function deliverEvent(event: EventEnvelope, attempts: number) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch("events", [
    { id: `msg-${event.id}-${attempts}`, timestamp: new Date(), attempts, body: event },
  ]);
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

const rows = async (shard: number, sql: string, ...binds: unknown[]) =>
  (
    await shardD1(env, shard)
      .prepare(sql)
      .bind(...binds)
      .all()
  ).results;

describe("a tenant move carries the send claims and the event ledger", () => {
  it("an event handled before the move is not handled again when redelivered after it", async () => {
    const w = await createWorld({ shardA: 0, shardB: 1 });
    const event: EventEnvelope = {
      id: `evt_${newId()}`,
      type: "review.created",
      tenantId: w.tenantA.id,
      occurredAt: new Date().toISOString(),
      data: { reviewId: `rev_${newId()}` },
    };
    expect((await deliverEvent(event, 1)).explicitAcks).toEqual([`msg-${event.id}-1`]);
    expect(calls.filter((id) => id === event.id)).toHaveLength(1);
    const ledger = "select handler, tenant_id from processed_events where event_id = ? order by handler";
    const before = await rows(0, ledger, event.id);
    expect(before).toContainEqual({ handler: "test-counting", tenant_id: w.tenantA.id });
    expect(before.every((r) => r.tenant_id === w.tenantA.id)).toBe(true);

    const move = await moveInline(w.tenantA.id, 1, w.users.platformAdmin.id);
    expect(move).toMatchObject({ state: "succeeded", sourceDeleted: true, sourceChanged: [] });
    expect(await rows(1, ledger, event.id)).toEqual(before);
    expect(await rows(0, ledger, event.id)).toEqual([]);

    // the queue delivers it again (at least once): the target's ledger says every handler is done
    expect((await deliverEvent(event, 2)).explicitAcks).toEqual([`msg-${event.id}-2`]);
    expect(calls.filter((id) => id === event.id)).toHaveLength(1);
  });

  it("a send's claim records its tenant and moves with the tenant, with its provider message id", async () => {
    const w = await createWorld({ shardA: 0, shardB: 1 });
    await noQuietHours(w);
    const loc = await newLocation(w, "manager");
    const t = await approvedTemplate(w, {
      channel: "email",
      subject: "Thanks {{firstName}}",
      bodyHtml: "<p><a href='{{reviewLink}}'>review</a></p>",
      bodyText: "{{reviewLink}} {{unsubscribeLink}}",
    });
    const c = await newContact(w, { firstName: "Ada" });
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id, templateId: t.id });
    expect((await runSends([id])).explicitAcks).toHaveLength(1);
    const claim =
      "select solicitation_id, tenant_id, provider, provider_message_id from send_records where solicitation_id = ?";
    const before = await rows(0, claim, id);
    expect(before).toEqual([
      { solicitation_id: id, tenant_id: w.tenantA.id, provider: "outbox", provider_message_id: expect.any(String) },
    ]);
    expect((await rowsOn(0, w.tenantA.id)).send_records).toBe(1);

    const move = await moveInline(w.tenantA.id, 1, w.users.platformAdmin.id);
    expect(move).toMatchObject({ state: "succeeded", sourceDeleted: true, sourceChanged: [] });
    expect(await rows(1, claim, id)).toEqual(before);
    expect(await rows(0, claim, id)).toEqual([]);
  });
});

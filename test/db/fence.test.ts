import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { consentRecords, contacts, domainEvents, locations, solicitations, tenants } from "../../src/db/schema";
import { controlDb, forgetTenantShard, shardDb } from "../../src/db/shards";
import { FENCED_RETRY_SECONDS } from "../../src/db/tenant-fence";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { commit } from "../../src/lib/commit";
import { SYSTEM_META } from "../../src/lib/context";
import { eventStatement } from "../../src/lib/events";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { getTenantMove, startTenantMove } from "../../src/modules/admin/tenant-move.service";
import { forgetTenantRef } from "../../src/modules/identity/principal-cache";
import { mintLinkToken, mintUnsubscribeToken } from "../../src/modules/links/tokens";
import { queueConsumers } from "../../src/wiring";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { callConfirmed, connect, mintTestKey } from "../mcp/helpers";

/** Sets or lifts the fence the way the move does: the directory row, then this isolate's caches. */
async function fence(tenantId: string, on: boolean) {
  await controlDb(env)
    .update(tenants)
    .set({ movingSince: on ? nowIso() : null })
    .where(eq(tenants.id, tenantId));
  forgetTenantRef(tenantId);
  forgetTenantShard(tenantId);
}

/** Tenant A on shard 1 (fenced in the tests), tenant B on shard 0, each with a location and a contact. */
async function world() {
  const w = await createWorld({ shardA: 1, shardB: 0 });
  const location = (await w.as("manager").post("/v1/locations", { name: "Fenced street" })).body as { id: string };
  const contact = (
    await w.as("manager").post("/v1/contacts", { email: `c-${newId()}@example.test`, firstName: "Casey" })
  ).body as { id: string };
  expect([location.id, contact.id].every(Boolean)).toBe(true);
  return { w, location, contact };
}

const onShard1 = () => shardDb(env, 1);

async function feedbackLink(w: World, locationId: string, contactId: string) {
  const id = newId();
  const token = await mintLinkToken(env.JWT_SECRET!, {
    solicitationId: id,
    tenantId: w.tenantA.id,
    locationId,
    destination: "feedback",
  });
  const now = nowIso();
  await onShard1().insert(solicitations).values({
    id,
    tenantId: w.tenantA.id,
    locationId,
    contactId,
    campaignId: null,
    channel: "email",
    status: "SENT",
    shortLinkToken: token,
    sentAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return { id, token };
}

describe("the move fence beyond /v1 (issue #24)", () => {
  it("answers 503 TENANT_MOVING with Retry-After to an agency write into a moving tenant, and lets it through once lifted", async () => {
    const { w } = await world();
    const token = w.users.agencyAdmin.token;
    const path = `/agency/tenants/${w.tenantA.id}/locations`;
    const countOnShard1 = async () =>
      (await onShard1().select({ id: locations.id }).from(locations).where(eq(locations.tenantId, w.tenantA.id)))
        .length;
    const before = await countOnShard1();
    await fence(w.tenantA.id, true);
    const fenced = await request("POST", path, { token, body: { name: "During the move" } });
    expect([fenced.status, fenced.body.code, fenced.body.details, fenced.headers.get("retry-after")]).toEqual([
      503,
      "TENANT_MOVING",
      { retryAfterSeconds: 5 },
      "5",
    ]);
    const renamed = await request("PATCH", `/agency/tenants/${w.tenantA.id}`, {
      token,
      body: { name: "Renamed while moving" },
    });
    expect([renamed.status, renamed.body.code]).toEqual([503, "TENANT_MOVING"]);
    expect(
      (await controlDb(env).select({ name: tenants.name }).from(tenants).where(eq(tenants.id, w.tenantA.id)).get())!
        .name,
    ).toBe(w.tenantA.name);
    // reads go on
    expect((await request("GET", `/agency/tenants/${w.tenantA.id}/users`, { token })).status).toBe(200);
    expect(await countOnShard1()).toBe(before);
    await fence(w.tenantA.id, false);
    const created = await request("POST", path, { token, body: { name: "After the move" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(
      await onShard1().select({ name: locations.name }).from(locations).where(eq(locations.id, created.body.id)).get(),
    ).toEqual({ name: "After the move" });
  });

  it("refuses a public feedback submission for a moving tenant with nothing written, then accepts it", async () => {
    const { w, location, contact } = await world();
    const link = await feedbackLink(w, location.id, contact.id);
    const converted = async () =>
      (await onShard1()
        .select({ at: solicitations.convertedAt })
        .from(solicitations)
        .where(eq(solicitations.id, link.id))
        .get())!.at;
    await fence(w.tenantA.id, true);
    const fenced = await request("POST", `/v1/f/${link.token}`, { body: { rating: 5, text: "Great" } });
    expect([fenced.status, fenced.body.code, fenced.headers.get("retry-after")]).toEqual([503, "TENANT_MOVING", "5"]);
    // the hosted page keeps the answers and says to send again
    const page = await request("POST", `/f/${link.token}`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "rating=4&text=Kept+text",
    });
    expect([page.status, page.headers.get("retry-after")]).toEqual([503, "5"]);
    expect(page.text).toContain("Please send it again in a few seconds");
    expect(page.text).toContain("Kept text");
    expect(await converted()).toBeNull();
    await fence(w.tenantA.id, false);
    const ok = await request("POST", `/v1/f/${link.token}`, { body: { rating: 5, text: "Great" } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(await converted()).not.toBeNull();
  });

  it("refuses MCP write tools with TENANT_MOVING while read tools still work", async () => {
    const { w, contact } = await world();
    const key = mintTestKey(w.tenantA.id, ["read:contacts", "write:contacts"]);
    const { client } = await connect({ token: key.token });
    const suppressed = async () =>
      (await onShard1().select({ s: contacts.isSuppressed }).from(contacts).where(eq(contacts.id, contact.id)).get())!
        .s;
    await fence(w.tenantA.id, true);
    const write = await callConfirmed(client, "contact.suppress", { contactId: contact.id, reason: "asked by phone" });
    expect(write.isError).toBe(true);
    const error = JSON.parse((write.content as { text: string }[])[0]!.text);
    expect(error).toMatchObject({ code: "TENANT_MOVING", details: { retryAfterSeconds: 5 } });
    expect(await suppressed()).toBe(false);
    const read = await client.callTool({ name: "contact.list", arguments: {} });
    expect(read.isError).toBeFalsy();
    expect((read.structuredContent as { data: { id: string }[] }).data.map((c) => c.id)).toEqual([contact.id]);
    await fence(w.tenantA.id, false);
    const again = await callConfirmed(client, "contact.suppress", { contactId: contact.id, reason: "asked by phone" });
    expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    expect(await suppressed()).toBe(true);
    await client.close();
  });

  it("retries a queue message of a moving tenant later and acks another tenant's in the same batch", async () => {
    const { w } = await world();
    const eventOn = async (shard: number, tenantId: string) => {
      const e = eventStatement({ db: shardDb(env, shard), tenantId }, "contact.suppressed", { contactId: newId() });
      await commit(
        {
          db: shardDb(env, shard),
          env: { ...env, EVENTS: { sendBatch: async () => {} } as unknown as Queue },
          defer: () => {},
        },
        [],
        [e],
      );
      return e.event;
    };
    const a = await eventOn(1, w.tenantA.id);
    const b = await eventOn(0, w.tenantB.id);
    const dispatched = async (shard: number, id: string) =>
      (await shardDb(env, shard)
        .select({ at: domainEvents.dispatchedAt })
        .from(domainEvents)
        .where(and(eq(domainEvents.id, id)))
        .get())!.at;
    const run = async (attempts: number) => {
      const batch = createMessageBatch("events", [
        { id: "fenced", timestamp: new Date(), attempts, body: a },
        { id: "other", timestamp: new Date(), attempts, body: b },
      ]);
      const exec = createExecutionContext();
      await worker.queue(batch, env, exec);
      return getQueueResult(batch, exec);
    };
    await fence(w.tenantA.id, true);
    const first = await run(1);
    expect(first.explicitAcks).toEqual(["other"]);
    expect(first.retryMessages).toEqual([{ msgId: "fenced" }]);
    // the wait (getQueueResult does not report it): a message retried, never acked, with the fence's delay
    const calls: string[] = [];
    const message = {
      id: "spy",
      timestamp: new Date(),
      attempts: 1,
      body: a,
      ack: () => calls.push("ack"),
      retry: (o?: { delaySeconds?: number }) => calls.push(`retry ${o?.delaySeconds}`),
    };
    await queueConsumers().events(
      {
        queue: "events",
        messages: [message],
        ackAll: () => {},
        retryAll: () => {},
      } as unknown as MessageBatch<unknown>,
      env,
      createExecutionContext(),
    );
    expect(calls).toEqual([`retry ${FENCED_RETRY_SECONDS}`]);
    expect(await dispatched(1, a.id)).toBeNull();
    expect(await dispatched(0, b.id)).not.toBeNull();
    await fence(w.tenantA.id, false);
    const second = await run(2);
    expect([...second.explicitAcks].sort()).toEqual(["fenced", "other"]);
    expect(second.retryMessages).toEqual([]);
    expect(await dispatched(1, a.id)).not.toBeNull();
  });

  it("runs the tenant-move job's own messages while the tenant is fenced, and retries its other jobs", async () => {
    const { w, location } = await world();
    const sent: unknown[] = [];
    const e = { ...env, JOBS: { send: async (body: unknown) => void sent.push(body) } } as unknown as Env;
    const ctx = {
      db: controlDb(e),
      control: controlDb(e),
      env: e,
      actor: { type: "user" as const, userId: w.users.platformAdmin.id, via: "platform" as const },
      meta: SYSTEM_META,
      defer: () => {},
    };
    const move = await startTenantMove(ctx, w.tenantA.id, 0, { settleSeconds: 0 });
    const calls: string[] = [];
    const msg = (id: string, body: unknown) => ({
      id,
      timestamp: new Date(),
      attempts: 1,
      body,
      ack: () => calls.push(`${id} ack`),
      retry: (o?: { delaySeconds?: number }) => calls.push(`${id} retry ${o?.delaySeconds}`),
    });
    const job = { type: "crm_import", jobId: newId(), tenantId: w.tenantA.id };
    const jobs = queueConsumers().jobs;
    for (let n = 0; sent.length; n++) {
      const messages = [msg(`move-${n}`, sent.shift()), ...(n === 0 ? [msg("job", job)] : [])];
      await jobs(
        { queue: "jobs", messages, ackAll: () => {}, retryAll: () => {} } as unknown as MessageBatch<unknown>,
        e,
        createExecutionContext(),
      );
    }
    expect(calls).toContain(`job retry ${FENCED_RETRY_SECONDS}`);
    const moveCalls = calls.filter((c) => c.startsWith("move-"));
    expect(moveCalls.length).toBeGreaterThan(3);
    expect(moveCalls.every((c) => c.endsWith(" ack"))).toBe(true);
    expect((await getTenantMove(env, move.id)).state).toBe("succeeded");
    // moved to shard 0 and writable again
    expect(
      await controlDb(env)
        .select({ shard: tenants.shard, movingSince: tenants.movingSince })
        .from(tenants)
        .where(eq(tenants.id, w.tenantA.id))
        .get(),
    ).toEqual({ shard: 0, movingSince: null });
    expect(
      await shardDb(env, 0).select({ id: locations.id }).from(locations).where(eq(locations.id, location.id)).get(),
    ).toEqual({ id: location.id });
  });

  it("retries a CLICKS message holding a click of a moving tenant whole, acks the others, and records it after the fence", async () => {
    const { w, location, contact } = await world();
    const link = await feedbackLink(w, location.id, contact.id);
    const click = (tenantId: string, solicitationId: string) => ({
      id: newId(),
      tenantId,
      solicitationId,
      source: "redirect",
      at: nowIso(),
    });
    const clickedAt = async () =>
      (await onShard1()
        .select({ at: solicitations.clickedAt })
        .from(solicitations)
        .where(eq(solicitations.id, link.id))
        .get())!.at;
    const run = async (attempts: number) => {
      const batch = createMessageBatch("clicks", [
        {
          id: "mixed",
          timestamp: new Date(),
          attempts,
          body: { clicks: [click(w.tenantB.id, newId()), click(w.tenantA.id, link.id)] },
        },
        { id: "other", timestamp: new Date(), attempts, body: { clicks: [click(w.tenantB.id, newId())] } },
      ]);
      const exec = createExecutionContext();
      await worker.queue(batch, env, exec);
      return getQueueResult(batch, exec);
    };
    await fence(w.tenantA.id, true);
    const first = await run(1);
    expect([first.explicitAcks, first.retryMessages]).toEqual([["other"], [{ msgId: "mixed" }]]);
    expect(await clickedAt()).toBeNull();
    await fence(w.tenantA.id, false);
    const second = await run(2);
    expect([[...second.explicitAcks].sort(), second.retryMessages]).toEqual([["mixed", "other"], []]);
    expect(await clickedAt()).not.toBeNull();
  });

  it("refuses an unsubscribe of a moving tenant's contact with nothing written, then records it", async () => {
    const { w, location, contact } = await world();
    const link = await feedbackLink(w, location.id, contact.id);
    const token = await mintUnsubscribeToken(env.JWT_SECRET!, {
      tenantId: w.tenantA.id,
      contactId: contact.id,
      channel: "email",
      solicitationId: link.id,
    });
    const consent = async () =>
      (
        await onShard1()
          .select({ status: consentRecords.status })
          .from(consentRecords)
          .where(eq(consentRecords.contactId, contact.id))
      ).map((r) => r.status);
    await fence(w.tenantA.id, true);
    // reading the page goes on
    expect((await request("GET", `/unsubscribe/${token}`, { headers: { accept: "application/json" } })).status).toBe(
      200,
    );
    const fenced = await request("POST", `/unsubscribe/${token}`, { headers: { accept: "application/json" } });
    expect([fenced.status, fenced.body.code, fenced.headers.get("retry-after")]).toEqual([503, "TENANT_MOVING", "5"]);
    expect(await consent()).toEqual([]);
    await fence(w.tenantA.id, false);
    const ok = await request("POST", `/unsubscribe/${token}`, { headers: { accept: "application/json" } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await consent()).toEqual(["revoked"]);
  });
});

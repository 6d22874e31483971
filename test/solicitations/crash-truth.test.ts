import { createExecutionContext, createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { domainEvents, sendRecords } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import { campaignMetrics } from "../../src/modules/analytics/skills";
import { deliverSends } from "../../src/modules/solicitations/delivery";
import { CLAIM_ORPHANED_AFTER_MS } from "../../src/modules/solicitations/reconcile";
import { sweepStalePending } from "../../src/modules/solicitations/stale";
import type { FetchLike } from "../../src/providers/messaging/types";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";
import { faultyEnv, insertInto, serviceContext, updateOf } from "./faults";
import { newContact, newLocation, outboxFor, pendingRow, solicitationRow, waitForStatus } from "./helpers";
import { claimOf, ok, sendgrid } from "./sends";

/**
 * A hard kill of the runtime while a SENDS batch is in flight (docs/sending.md, "Crash truth"): the
 * consumer is started and never finishes; at the kill its database goes away (a dead process writes
 * nothing) and the provider calls still open never answer. Then the sweeps run on the surviving
 * state with the clock moved on, as after a restart.
 */
let w: World;
let loc: { id: string };
let campaignId: string;

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w, "tenantBAdmin");
  const put = await w.as("tenantBAdmin").put("/v1/settings/email", {
    provider: "sendgrid",
    fromAddress: "hello@b.test",
    fromName: "B Co",
    credentials: { apiKey: "SG.crash" },
  });
  expect(put.status).toBe(200);
  campaignId = (
    await w.as("tenantBAdmin").post("/v1/campaigns", { name: "Crash", type: "one_time", channels: ["email"] })
  ).body.id;
});

async function pending(n: number, tenant: "B" | "A" = "B") {
  const out: { id: string; email: string }[] = [];
  for (let i = 0; i < n; i++) {
    const c = await newContact(w, { as: tenant === "B" ? "tenantBAdmin" : "tenantUser" });
    const tenantId = tenant === "B" ? w.tenantB.id : w.tenantA.id;
    out.push({
      id: await pendingRow({
        tenantId,
        contactId: c.id,
        locationId: tenant === "B" ? loc.id : aLoc!.id,
        campaignId: tenant === "B" ? campaignId : null,
      }),
      email: c.email!,
    });
  }
  return out;
}
let aLoc: { id: string } | undefined;

/** Starts the consumer on `ids` and returns the kill switch: after it, every D1 call of that consumer fails. */
function startConsumer(ids: string[], fetch: FetchLike) {
  let killed = false;
  const broken = faultyEnv([{ match: () => killed, times: Number.POSITIVE_INFINITY }]);
  const batch = createMessageBatch(
    "sends",
    ids.map((solicitationId, i) => ({
      id: `m-${solicitationId}-${i}`,
      timestamp: new Date(),
      attempts: 1,
      body: { solicitationId },
    })),
  );
  const running = deliverSends(batch, broken.env, shardDb(broken.env, 0), createExecutionContext(), { fetch }).catch(
    () => undefined,
  );
  const kill = () => {
    killed = true;
  };
  return { kill, running };
}

const sweepAt = (msLater: number) => sweepStalePending(env, shardDb(env, 0), new Date(Date.now() + msLater));
const sentEvents = async (id: string) =>
  (await db().select().from(domainEvents).where(eq(domainEvents.type, "solicitation.sent"))).filter(
    (e) => e.data.solicitationId === id,
  );

describe("a hard kill while a SENDS batch is in flight", { timeout: 30_000 }, () => {
  it("receipts are on the claims as the provider answers; after the restart one sweep makes every state true: SENT, or SENT with an unknown outcome, never FAILED", async () => {
    const all = await pending(6);
    const answered = new Set(all.slice(0, 4).map((s) => s.email));
    // the first four calls are answered; the other two are in flight when the runtime dies
    const api = sendgrid((to) => (answered.has(to) ? ok() : new Promise<Response>(() => {})));
    const consumer = startConsumer(
      all.map((s) => s.id),
      api.fetch,
    );

    // each answer is written onto its claim as it comes, while the batch is still running
    const claims = await pollUntil(
      () => Promise.all(all.map((s) => claimOf(s.id))),
      (cs) => cs.filter((c) => c?.providerMessageId).length === 4 && api.calls.length === 6,
    );
    consumer.kill();
    for (const [i, c] of claims.entries()) {
      expect(c, `claim ${i}`).toMatchObject({
        provider: "sendgrid",
        providerMessageId: i < 4 ? expect.stringMatching(/^sg-/) : null,
      });
      expect((await solicitationRow(all[i]!.id))!.status).toBe("PENDING");
    }

    // the restart: the next sweep cycle with the clock past the claims' age
    const first = await sweepAt(CLAIM_ORPHANED_AFTER_MS + 60_000);
    expect(first).toMatchObject({ reconciled: 4, outcomeUnknown: 2, failed: 0 });
    for (const [i, s] of all.entries()) {
      const row = (await solicitationRow(s.id))!;
      if (i < 4) {
        expect(row).toMatchObject({
          status: "SENT",
          provider: "sendgrid",
          providerMessageId: claims[i]!.providerMessageId,
          deliveryOutcome: null,
          failureReason: null,
        });
      } else {
        expect(row).toMatchObject({
          status: "SENT",
          provider: "sendgrid",
          providerMessageId: null,
          deliveryOutcome: "unknown",
          failureReason: null,
        });
      }
      expect(row.sentAt).toBe(claims[i]!.createdAt);
      expect(await sentEvents(s.id)).toHaveLength(1);
    }

    // a day later nothing is FAILED, and nothing was sent again
    await sweepAt(25 * 3600_000);
    for (const s of all) expect((await solicitationRow(s.id))!.status).toBe("SENT");
    expect(api.calls).toHaveLength(6);
    for (const s of all.slice(0, 4)) expect(api.accepted.get(s.id)).toBe(1);

    // visible: the API field, the campaign filter, the count in the campaign's metrics
    const one = await w.as("tenantBAdmin").get(`/v1/solicitations/${all[5]!.id}`);
    expect(one.body).toMatchObject({ status: "SENT", deliveryOutcome: "unknown" });
    const unknown = await w.as("tenantBAdmin").get(`/v1/campaigns/${campaignId}/solicitations?deliveryOutcome=unknown`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.total).toBe(2);
    expect(unknown.body.data.map((s: { id: string }) => s.id).sort()).toEqual([all[4]!.id, all[5]!.id].sort());
    const everything = await w.as("tenantBAdmin").get(`/v1/campaigns/${campaignId}/solicitations`);
    expect(everything.body.total).toBe(6);
    expect(
      (await w.as("tenantBAdmin").get(`/v1/campaigns/${campaignId}/solicitations?deliveryOutcome=maybe`)).status,
    ).toBe(400);
    const metrics = await campaignMetrics(serviceContext(env, w.tenantB.id), { campaignId });
    expect(metrics.totals.outcomeUnknown).toBe(2);
  });

  it("the outbox: a kill after its rows were written and before anything else is reconciled to SENT from the rows", async () => {
    aLoc ??= await newLocation(w);
    const all = await pending(3, "A");
    // the outbox batch commits; every later write of this consumer fails, as if it died right after
    const afterOutbox = (sql: string) =>
      updateOf("send_records")(sql) || updateOf("solicitations")(sql) || insertInto("domain_events")(sql);
    const broken = faultyEnv([{ match: afterOutbox, times: Number.POSITIVE_INFINITY }]);
    const batch = createMessageBatch(
      "sends",
      all.map((s, i) => ({ id: `o-${s.id}-${i}`, timestamp: new Date(), attempts: 1, body: { solicitationId: s.id } })),
    );
    await deliverSends(batch, broken.env, shardDb(broken.env, 0), createExecutionContext()).catch(() => undefined);
    for (const s of all) {
      expect(await outboxFor(s.id)).toHaveLength(1);
      expect((await solicitationRow(s.id))!.status).toBe("PENDING");
    }
    await sweepAt(CLAIM_ORPHANED_AFTER_MS + 60_000);
    for (const s of all) {
      const [box] = await outboxFor(s.id);
      expect(await solicitationRow(s.id)).toMatchObject({
        status: "SENT",
        provider: "outbox",
        providerMessageId: box!.id,
        deliveryOutcome: null,
      });
      expect(
        (await db().select().from(sendRecords).where(eq(sendRecords.solicitationId, s.id)).get())!.providerMessageId,
      ).toBe(box!.id);
    }
    await sweepAt(25 * 3600_000);
    for (const s of all) expect((await solicitationRow(s.id))!.status).toBe("SENT");
  });

  it("the outbox: a kill after the claims, before its rows were written: the outbox never took them, so they are queued again and sent once", async () => {
    aLoc ??= await newLocation(w);
    const all = await pending(3, "A");
    // the runtime dies as the outbox write starts: that write and everything after it never happen
    let dead = false;
    const broken = faultyEnv([
      { match: (sql) => (dead ||= insertInto("outbox_messages")(sql)), times: Number.POSITIVE_INFINITY },
    ]);
    const batch = createMessageBatch(
      "sends",
      all.map((s, i) => ({ id: `n-${s.id}-${i}`, timestamp: new Date(), attempts: 1, body: { solicitationId: s.id } })),
    );
    await deliverSends(batch, broken.env, shardDb(broken.env, 0), createExecutionContext()).catch(() => undefined);
    // as at the kill: claimed for the outbox, no row; the runtime's queue message died with it
    for (const s of all) {
      expect(await claimOf(s.id)).toMatchObject({ provider: "outbox", providerMessageId: null });
      expect(await outboxFor(s.id)).toHaveLength(0);
    }
    const result = await sweepAt(CLAIM_ORPHANED_AFTER_MS + 60_000);
    expect(result).toMatchObject({ resent: 3, outcomeUnknown: 0 });
    for (const s of all) {
      const row = await waitForStatus(s.id, "SENT");
      const box = await outboxFor(s.id);
      expect(box).toHaveLength(1);
      expect(row).toMatchObject({ provider: "outbox", providerMessageId: box[0]!.id, deliveryOutcome: null });
    }
  });

  it("a claim still in flight (younger than a consumer can run) is left alone; a PENDING row never claimed still fails after 24 hours", async () => {
    const [fresh, neverClaimed] = await pending(2);
    await db().insert(sendRecords).values({
      solicitationId: fresh!.id,
      provider: "sendgrid",
      providerMessageId: null,
      createdAt: new Date().toISOString(),
    });
    await sweepAt(CLAIM_ORPHANED_AFTER_MS - 60_000);
    expect((await solicitationRow(fresh!.id))!.status).toBe("PENDING");
    await sweepAt(25 * 3600_000);
    expect(await solicitationRow(neverClaimed!.id)).toMatchObject({
      status: "FAILED",
      failureReason: "not delivered within 24 hours",
    });
    expect(await solicitationRow(fresh!.id)).toMatchObject({ status: "SENT", deliveryOutcome: "unknown" });
  });
});

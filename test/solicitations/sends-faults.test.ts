import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { domainEvents } from "../../src/db/schema";
import { MAX_SEND_ATTEMPTS } from "../../src/modules/solicitations/delivery";
import { sweepStalePending } from "../../src/modules/solicitations/stale";
import { createWorld, db, type World } from "../helpers/seed";
import { faultyEnv, insertInto, updateOf } from "./faults";
import { newContact, newLocation, pendingRow, solicitationRow } from "./helpers";
import { claimOf, ok, sendBatch, sendgrid, timeout } from "./sends";

let w: World;
let loc: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w, "tenantBAdmin");
  const put = await w.as("tenantBAdmin").put("/v1/settings/email", {
    provider: "sendgrid",
    fromAddress: "hello@b.test",
    fromName: "B Co",
    credentials: { apiKey: "SG.reliability" },
  });
  expect(put.status).toBe(200);
});

/** PENDING solicitations of tenant B (SendGrid), not queued: the tests drive the consumer. */
async function pending(n: number) {
  const out: { id: string; email: string }[] = [];
  for (let i = 0; i < n; i++) {
    const c = await newContact(w, { as: "tenantBAdmin" });
    out.push({
      id: await pendingRow({ tenantId: w.tenantB.id, contactId: c.id, locationId: loc.id }),
      email: c.email!,
    });
  }
  return out;
}

const eventTypes = async (solicitationId: string) =>
  (await db().select().from(domainEvents).where(eq(domainEvents.tenantId, w.tenantB.id)))
    .filter((e) => e.data.solicitationId === solicitationId)
    .map((e) => e.type);

/** backoffSeconds' window for an attempt: full jitter over the upper half of base * 2^(n-1), capped at an hour. */
const window = (attempt: number) => {
  const ceiling = Math.min(3600, 10 * 2 ** (attempt - 1));
  return [Math.round(ceiling / 2), ceiling] as const;
};

describe("provider failures during sends", { timeout: 30_000 }, () => {
  it.each([
    ["HTTP 503", () => new Response("upstream unavailable", { status: 503 }), "HTTP 503"],
    [
      "HTTP 429",
      () => new Response(JSON.stringify({ errors: [{ message: "too many requests" }] }), { status: 429 }),
      "HTTP 429",
    ],
    ["a timeout", timeout, "network error"],
  ])(
    "%s: retried with growing backoff, MAX_SEND_ATTEMPTS provider calls at most, then FAILED with the reason",
    async (_name, fail, reason) => {
      const [s] = await pending(1);
      const api = sendgrid(() => fail());
      const delays: number[] = [];
      for (let attempt = 1; attempt <= MAX_SEND_ATTEMPTS; attempt++) {
        const r = await sendBatch([s!.id], { fetch: api.fetch, attempts: attempt });
        expect(r.threw).toBeNull();
        if (attempt < MAX_SEND_ATTEMPTS) {
          expect(r.retryMessages).toHaveLength(1);
          const [lo, hi] = window(attempt);
          expect(r.delays[0]).toBeGreaterThanOrEqual(lo);
          expect(r.delays[0]).toBeLessThanOrEqual(hi);
          delays.push(r.delays[0]!);
          // between attempts: still PENDING, the last error visible, the claim released for the retry
          expect(await solicitationRow(s!.id)).toMatchObject({
            status: "PENDING",
            failureReason: expect.stringContaining(reason),
          });
          expect(await claimOf(s!.id)).toBeUndefined();
        } else {
          expect(r.retryMessages).toEqual([]);
          expect(r.explicitAcks).toHaveLength(1);
        }
      }
      expect(api.calls).toHaveLength(MAX_SEND_ATTEMPTS);
      const row = await solicitationRow(s!.id);
      expect(row).toMatchObject({ status: "FAILED", sentAt: null, providerMessageId: null });
      expect(row!.failureReason).toContain(reason);
      expect(row!.failureReason).toContain(`after ${MAX_SEND_ATTEMPTS} attempts`);
      expect(await eventTypes(s!.id)).toEqual(expect.arrayContaining(["solicitation.failed"]));
      // the queue may still redeliver (its max_retries is one more): nothing is called again
      const late = await sendBatch([s!.id], { fetch: api.fetch, attempts: MAX_SEND_ATTEMPTS + 1 });
      expect(late.explicitAcks).toHaveLength(1);
      expect(api.calls).toHaveLength(MAX_SEND_ATTEMPTS);
      // the worst case is bounded: four waits of at most 10 + 20 + 40 + 80 seconds
      expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(150);
    },
  );

  it("a provider that recovers (429, timeout, then accepted) sends exactly once and ends SENT with no error", async () => {
    const [s] = await pending(1);
    const api = sendgrid((_to, call) =>
      call === 1 ? new Response("slow down", { status: 429 }) : call === 2 ? timeout() : ok(),
    );
    for (let attempt = 1; attempt <= 3; attempt++) await sendBatch([s!.id], { fetch: api.fetch, attempts: attempt });
    expect(api.calls).toHaveLength(3);
    expect(api.accepted.get(s!.id)).toBe(1);
    const row = await solicitationRow(s!.id);
    expect(row).toMatchObject({ status: "SENT", provider: "sendgrid", failureReason: null });
    expect(row!.providerMessageId).toMatch(new RegExp(`^sg-${s!.id}-`));
    expect(await claimOf(s!.id)).toMatchObject({ provider: "sendgrid", providerMessageId: row!.providerMessageId });
  });

  it("in a mixed batch only the failed messages are retried; a redelivery of the whole batch sends nothing twice", async () => {
    const all = await pending(6);
    const flaky = new Set([all[1]!.email, all[4]!.email]);
    const api = sendgrid((to, call) =>
      flaky.has(to) && call === 1 ? new Response("bad gateway", { status: 502 }) : ok(),
    );
    const ids = all.map((s) => s.id);
    const first = await sendBatch(ids, { fetch: api.fetch });
    expect(first.retryMessages).toHaveLength(2);
    expect(first.explicitAcks).toHaveLength(4);
    // the runtime redelivers everything (e.g. the ack was lost): only the two retried ones are sent now
    await sendBatch(ids, { fetch: api.fetch, attempts: 2 });
    for (const s of all) {
      expect(api.accepted.get(s.id), s.email).toBe(1);
      expect(await solicitationRow(s.id)).toMatchObject({ status: "SENT", failureReason: null });
    }
    expect(api.calls).toHaveLength(8);
  });
});

describe("the SENDS consumer crashing mid-batch", { timeout: 30_000 }, () => {
  it("a D1 failure while loading the batch sends nothing; the redelivery sends each message once", async () => {
    const all = await pending(3);
    const ids = all.map((s) => s.id);
    const api = sendgrid(() => ok());
    const broken = faultyEnv([{ match: (sql) => sql.toLowerCase().includes('from "solicitations"') }]);
    const crashed = await sendBatch(ids, { env: broken.env, fetch: api.fetch });
    expect(broken.injected).toHaveLength(1);
    expect(crashed.threw).toBeInstanceOf(Error);
    expect(crashed.explicitAcks).toEqual([]);
    expect(api.calls).toEqual([]);
    await sendBatch(ids, { fetch: api.fetch, attempts: 2 });
    for (const s of all) {
      expect(api.accepted.get(s.id)).toBe(1);
      expect((await solicitationRow(s.id))!.status).toBe("SENT");
    }
  });

  it("a D1 failure while claiming the send records sends nothing; the redelivery sends each message once", async () => {
    const all = await pending(3);
    const ids = all.map((s) => s.id);
    const api = sendgrid(() => ok());
    const broken = faultyEnv([{ match: insertInto("send_records") }]);
    const crashed = await sendBatch(ids, { env: broken.env, fetch: api.fetch });
    expect(crashed.threw).toBeInstanceOf(Error);
    expect(api.calls).toEqual([]);
    for (const s of all) expect(await claimOf(s.id)).toBeUndefined();
    await sendBatch(ids, { fetch: api.fetch, attempts: 2 });
    for (const s of all) {
      expect(api.accepted.get(s.id)).toBe(1);
      expect((await solicitationRow(s.id))!.status).toBe("SENT");
    }
  });

  it("a crash after the provider accepted, before the results were recorded: the redelivery never sends again", async () => {
    const all = await pending(4);
    const ids = all.map((s) => s.id);
    const api = sendgrid(() => ok());
    // the batch that records SENT for every message fails
    const broken = faultyEnv([{ match: updateOf("solicitations") }]);
    const crashed = await sendBatch(ids, { env: broken.env, fetch: api.fetch });
    expect(crashed.threw).toBeInstanceOf(Error);
    expect(crashed.explicitAcks).toEqual([]);
    expect(api.calls).toHaveLength(4);
    for (let attempt = 2; attempt <= 3; attempt++) await sendBatch(ids, { fetch: api.fetch, attempts: attempt });
    for (const s of all) {
      expect(api.accepted.get(s.id)).toBe(1);
      expect(await claimOf(s.id)).toBeDefined();
    }
    expect(api.calls).toHaveLength(4);
  });

  it("duplicate messages in concurrent batches (two consumers at once) send each solicitation once", async () => {
    const all = await pending(5);
    const ids = all.map((s) => s.id);
    const api = sendgrid(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return ok();
    });
    const runs = await Promise.all([
      sendBatch(ids, { fetch: api.fetch }),
      sendBatch([...ids].reverse(), { fetch: api.fetch }),
      sendBatch([ids[0]!, ids[0]!], { fetch: api.fetch }),
    ]);
    for (const r of runs) expect(r.threw).toBeNull();
    expect(api.calls).toHaveLength(5);
    for (const s of all) {
      expect(api.accepted.get(s.id)).toBe(1);
      expect((await solicitationRow(s.id))!.status).toBe("SENT");
      expect((await eventTypes(s.id)).filter((t) => t === "solicitation.sent")).toHaveLength(1);
    }
  });
});

describe("a result that could not be recorded", () => {
  it("a message the provider accepted ends SENT even when recording the outcome failed once", async () => {
    const id = (await pending(1))[0]!.id;
    const api = sendgrid(() => ok());
    const broken = faultyEnv([{ match: updateOf("solicitations") }]);
    expect((await sendBatch([id], { env: broken.env, fetch: api.fetch })).threw).toBeInstanceOf(Error);
    await sendBatch([id], { fetch: api.fetch, attempts: 2 });
    await sweepStalePending(env, db(), new Date(Date.now() + 25 * 3600_000));
    expect(api.accepted.get(id)).toBe(1);
    expect(await solicitationRow(id)).toMatchObject({
      status: "SENT",
      providerMessageId: expect.stringMatching(/^sg-/),
    });
  });
});

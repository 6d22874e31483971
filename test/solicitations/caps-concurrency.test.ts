import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { idempotencyKeys, outboxMessages, solicitations } from "../../src/db/schema";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  requestHash,
} from "../../src/modules/solicitations/idempotency";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";
import { ctxFor } from "../reviews/helpers";
import { newContact, newLocation, noQuietHours, solicit, uuid } from "./helpers";

// Frequency caps are a compliance limit: whatever the concurrency, a contact never gets more than the cap.
let w: World;
let loc: { id: string };
let campaign: { id: string };

beforeAll(async () => {
  w = await createWorld();
  await noQuietHours(w, "tenantAdmin", { frequencyCapDaily: 3, frequencyCapWeekly: 10 });
  loc = await newLocation(w);
  campaign = (await w.as("manager").post("/v1/campaigns", { name: "Overlap", type: "one_time", channels: ["email"] }))
    .body;
});

const rowsOf = (contactId: string) => db().select().from(solicitations).where(eq(solicitations.contactId, contactId));

/** Waits until the queue has delivered every non-blocked solicitation of the contact, then counts its emails. */
async function deliveredTo(contact: { id: string; email: string | null }) {
  await pollUntil(
    () => rowsOf(contact.id),
    (rows) => rows.every((r) => r.status !== "PENDING"),
    20_000,
  );
  return db()
    .select()
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, contact.email!), eq(outboxMessages.channel, "email")));
}

describe("frequency caps under concurrency", () => {
  it("50 concurrent POST /v1/solicitations to one contact with a daily cap of 3: exactly 3 go out, 47 BLOCKED FREQUENCY_CAP_DAILY", async () => {
    const c = await newContact(w);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    const notBlocked = answers.filter((a) => a.body.status !== "BLOCKED");
    expect(notBlocked).toHaveLength(3);
    expect(answers.filter((a) => a.body.blockedReason === "FREQUENCY_CAP_DAILY")).toHaveLength(47);
    const rows = await rowsOf(c.id);
    expect(rows).toHaveLength(50);
    expect(rows.filter((r) => r.status !== "BLOCKED")).toHaveLength(3);
    const mail = await deliveredTo(c);
    expect(mail.length).toBeLessThanOrEqual(3);
    expect(mail.map((m) => m.solicitationId).sort()).toEqual(notBlocked.map((a) => a.body.id).sort());
  }, 60_000);

  it("a campaign send overlapping single creates never exceeds the cap either", async () => {
    const c = await newContact(w);
    const singles = Array.from({ length: 20 }, () =>
      solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" }),
    );
    const sends = Array.from({ length: 10 }, () =>
      w
        .as("manager")
        .post(`/v1/campaigns/${campaign.id}/send`, { locationId: loc.id, channel: "email", contactIds: [c.id] }),
    );
    const [single, campaigns] = await Promise.all([Promise.all(singles), Promise.all(sends)]);
    expect(single.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(campaigns.map((a) => a.status)).toEqual(Array(10).fill(200));
    const queued =
      single.filter((a) => a.body.status === "PENDING").length + campaigns.reduce((n, a) => n + a.body.queued, 0);
    expect(queued).toBe(3);
    const rows = await rowsOf(c.id);
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => r.status !== "BLOCKED")).toHaveLength(3);
    expect(rows.filter((r) => r.blockedReason === "FREQUENCY_CAP_DAILY")).toHaveLength(27);
    expect((await deliveredTo(c)).length).toBeLessThanOrEqual(3);
  }, 60_000);

  it("the weekly cap holds under concurrency too", async () => {
    const c = await newContact(w);
    const old = new Date(Date.now() - 3 * 24 * 3600_000).toISOString();
    // 9 sends earlier this week (outside the daily window): one more fits in the weekly cap of 10
    const seed = (await solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" })).body;
    const base = (await db().select().from(solicitations).where(eq(solicitations.id, seed.id)).get())!;
    await db().update(solicitations).set({ createdAt: old }).where(eq(solicitations.id, seed.id));
    for (let i = 0; i < 8; i++) {
      await db()
        .insert(solicitations)
        .values({
          ...base,
          id: `${base.id}-w${i}`,
          shortLinkToken: `${base.shortLinkToken}-w${i}`,
          idempotencyKey: `w${i}-${base.id}`,
          status: "SENT" as const,
          createdAt: old,
        });
    }
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => solicit(w, { locationId: loc.id, contactId: c.id, channel: "email" })),
    );
    expect(answers.filter((a) => a.body.status !== "BLOCKED")).toHaveLength(1);
    expect(answers.filter((a) => a.body.blockedReason === "FREQUENCY_CAP_WEEKLY")).toHaveLength(39);
  }, 60_000);
});

describe("Idempotency-Key under concurrency", () => {
  it("20 concurrent requests with the same key: one solicitation, 20 identical answers", async () => {
    const c = await newContact(w);
    const key = uuid();
    const body = { locationId: loc.id, contactId: c.id, channel: "email" };
    const answers = await Promise.all(Array.from({ length: 20 }, () => solicit(w, body, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const first = answers[0]!.body;
    expect(first).toMatchObject({ contactId: c.id, status: "PENDING", idempotencyKey: key });
    for (const a of answers) expect(a.body).toEqual(first);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
    expect(await rowsOf(c.id)).toHaveLength(1);
    const stored = await db()
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, w.tenantA.id), eq(idempotencyKeys.key, key)));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.responseStatus).toBe(201);
  }, 60_000);

  it("a duplicate arriving while the first is in flight waits for its answer instead of a 409", async () => {
    const ctx = ctxFor(w.tenantA.id, w.users.tenantUser.id);
    const key = uuid();
    const hash = await requestHash({ a: 1 });
    expect(await claimIdempotencyKey(ctx, key, hash)).toEqual({ kind: "claimed" });
    const duplicate = claimIdempotencyKey(ctx, key, hash);
    // the first request finishes 300 ms later
    await new Promise((r) => setTimeout(r, 300));
    await completeIdempotencyKey(ctx, key, 201, { id: "first" });
    expect(await duplicate).toEqual({ kind: "replay", status: 201, body: { id: "first" } });
    // and a first request that fails frees the key: the waiting duplicate claims it
    const other = uuid();
    await claimIdempotencyKey(ctx, other, hash);
    const waiting = claimIdempotencyKey(ctx, other, hash);
    await new Promise((r) => setTimeout(r, 100));
    await releaseIdempotencyKey(ctx, other);
    expect(await waiting).toEqual({ kind: "claimed" });
  });
});

import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { sequenceEnrollments, sequenceStepRuns, solicitations } from "../../src/db/schema";
import worker from "../../src/index";
import { type ServiceContext, SYSTEM_META } from "../../src/lib/context";
import type { EventEnvelope } from "../../src/lib/events";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { mintLinkToken } from "../../src/modules/links/tokens";
import { enrollInSequence } from "../../src/modules/sequences/service";
import { runSequenceSweep } from "../../src/modules/sequences/sweep";
import type { SequenceStepRequest, SolicitationCreator } from "../../src/modules/sequences/types";
import { request } from "../helpers/http";
import { control, createWorld, db, type World } from "../helpers/seed";
import { auditOf, createContact, createLocation, seedSolicitation } from "../links/helpers";

let w: World;
let locationId: string;
let campaignId: string;
const creatorCalls: SequenceStepRequest[] = [];
let failOnceFor: string | null = null;

/** The stand-in for the sending module: a PENDING row per step, as the policy would pass it. */
const fakeCreator: SolicitationCreator = async (ctx, step) => {
  creatorCalls.push(step);
  if (failOnceFor === step.metadata.sequenceEnrollmentId) {
    failOnceFor = null;
    throw new Error("provider outage");
  }
  // let overlapping sweeps interleave here, as real sends would
  await new Promise((r) => setTimeout(r, 20));
  const id = newId();
  const now = nowIso();
  await ctx.db.insert(solicitations).values({
    id,
    tenantId: ctx.tenantId,
    locationId: step.locationId,
    contactId: step.contactId,
    campaignId: step.campaignId,
    templateId: step.templateId,
    channel: step.channel,
    status: "PENDING",
    sequenceStepIndex: step.sequenceStepIndex,
    idempotencyKey: step.idempotencyKey,
    shortLinkToken: await mintLinkToken(env.JWT_SECRET!, {
      solicitationId: id,
      tenantId: ctx.tenantId,
      locationId: step.locationId,
      destination: "auto",
    }),
    metadata: step.metadata,
    createdAt: now,
    updatedAt: now,
  });
  return { id, status: "PENDING", blockedReason: null };
};

const ctxA = (): ServiceContext => ({
  db: db(),
  control: control(),
  env,
  tenantId: w.tenantA.id,
  actor: { type: "system", name: "test" },
  meta: SYSTEM_META,
  defer: () => {},
});

const SENT_AT = "2026-05-04T15:00:00.000Z";
const at = (days: number, hours = 0) => new Date(Date.parse(SENT_AT) + (days * 24 + hours) * 3600_000);

beforeAll(async () => {
  w = await createWorld();
  locationId = (await createLocation(w.as("manager"))).id;
  const campaign = await w
    .as("manager")
    .post("/v1/campaigns", { name: "Drip", type: "drip", channels: ["email", "sms"] });
  campaignId = campaign.body.id;
  const seq = await w.as("manager").put(`/v1/campaigns/${campaignId}/sequence`, {
    steps: [
      { stepIndex: 0, channel: "email", delayDays: 0 },
      { stepIndex: 1, channel: "email", delayDays: 2 },
      { stepIndex: 2, channel: "sms", delayDays: 5 },
    ],
  });
  expect(seq.status).toBe(200);
});

async function enrolled(o: { phone?: string } = {}) {
  const contact = await createContact(w.as("manager"), { phone: o.phone ?? null });
  const s = await seedSolicitation({
    tenantId: w.tenantA.id,
    locationId,
    contactId: contact.id,
    campaignId,
    sentAt: SENT_AT,
    sequenceStepIndex: 0,
  });
  const row = (await db().select().from(solicitations).where(eq(solicitations.id, s.id)).get())!;
  const enrollmentId = await enrollInSequence(ctxA(), row);
  expect(enrollmentId).toBeTruthy();
  return { contact, origin: s, row, enrollmentId: enrollmentId! };
}

const enrollment = (id: string) => db().select().from(sequenceEnrollments).where(eq(sequenceEnrollments.id, id)).get();
const stepsOf = (contactId: string) =>
  db()
    .select()
    .from(solicitations)
    .where(and(eq(solicitations.contactId, contactId), eq(solicitations.campaignId, campaignId)))
    .orderBy(asc(solicitations.createdAt))
    .then((rows) => rows.filter((r) => (r.sequenceStepIndex ?? 0) > 0));

describe("enrollment", () => {
  it("schedules step 1 at sentAt + its delayDays, once per solicitation, audited", async () => {
    const { enrollmentId, row } = await enrolled();
    expect(await enrollment(enrollmentId)).toMatchObject({
      status: "active",
      campaignId,
      lastStepIndex: 0,
      nextStepIndex: 1,
      dueAt: at(2).toISOString(),
      startedAt: SENT_AT,
      originSolicitationId: row.id,
    });
    expect(await enrollInSequence(ctxA(), row)).toBe(enrollmentId);
    expect(
      await db().select().from(sequenceEnrollments).where(eq(sequenceEnrollments.originSolicitationId, row.id)),
    ).toHaveLength(1);
    expect(await auditOf(enrollmentId, "sequence.enrolled")).toHaveLength(1);
  });

  it("does not enroll a later step, an unsent solicitation, or one without a campaign", async () => {
    const contact = await createContact(w.as("manager"));
    const base = { tenantId: w.tenantA.id, locationId, contactId: contact.id };
    for (const o of [
      { ...base, campaignId, sequenceStepIndex: 1, sentAt: SENT_AT },
      { ...base, campaignId, status: "PENDING" as const, sentAt: null },
      { ...base, campaignId: null, sentAt: SENT_AT },
    ]) {
      const s = await seedSolicitation(o);
      const row = (await db().select().from(solicitations).where(eq(solicitations.id, s.id)).get())!;
      expect(await enrollInSequence(ctxA(), row)).toBeNull();
    }
  });

  it("is created automatically from the solicitation.sent event", async () => {
    const contact = await createContact(w.as("manager"));
    const s = await seedSolicitation({
      tenantId: w.tenantA.id,
      locationId,
      contactId: contact.id,
      campaignId,
      sentAt: SENT_AT,
      sequenceStepIndex: 0,
    });
    const event: EventEnvelope = {
      id: `evt_${newId()}`,
      type: "solicitation.sent",
      tenantId: w.tenantA.id,
      occurredAt: SENT_AT,
      data: { solicitationId: s.id },
    };
    for (const attempts of [1, 2]) {
      const batch = createMessageBatch("events", [
        { id: `m${attempts}`, timestamp: new Date(), attempts, body: event },
      ]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env, ctx);
      expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([`m${attempts}`]);
    }
    const rows = await db()
      .select()
      .from(sequenceEnrollments)
      .where(eq(sequenceEnrollments.originSolicitationId, s.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "active", nextStepIndex: 1, contactId: contact.id });
  });
});

describe("the sweep", () => {
  it("creates step 1 after its delay and step 2 after its delay, each at most once, then completes", async () => {
    const { contact, enrollmentId, origin } = await enrolled({ phone: "+14155550142" });
    await runSequenceSweep(env, db(), at(1, 23), fakeCreator);
    expect(await stepsOf(contact.id)).toHaveLength(0);

    await Promise.all([
      runSequenceSweep(env, db(), at(2), fakeCreator),
      runSequenceSweep(env, db(), at(2), fakeCreator),
    ]);
    await runSequenceSweep(env, db(), at(2, 1), fakeCreator);
    const afterStep1 = await stepsOf(contact.id);
    expect(afterStep1.map((s) => [s.sequenceStepIndex, s.channel, s.status])).toEqual([[1, "email", "PENDING"]]);
    expect(afterStep1[0]!.idempotencyKey).toBe(`sequence:${enrollmentId}:1`);
    expect(afterStep1[0]!.metadata).toEqual({ sequenceEnrollmentId: enrollmentId, originSolicitationId: origin.id });
    expect(await enrollment(enrollmentId)).toMatchObject({
      status: "active",
      lastStepIndex: 1,
      nextStepIndex: 2,
      dueAt: at(5).toISOString(),
    });

    await runSequenceSweep(env, db(), at(4), fakeCreator);
    expect(await stepsOf(contact.id)).toHaveLength(1);
    await Promise.all([
      runSequenceSweep(env, db(), at(5), fakeCreator),
      runSequenceSweep(env, db(), at(5), fakeCreator),
      runSequenceSweep(env, db(), at(6), fakeCreator),
    ]);
    const all = await stepsOf(contact.id);
    expect(all.map((s) => [s.sequenceStepIndex, s.channel])).toEqual([
      [1, "email"],
      [2, "sms"],
    ]);
    expect(await enrollment(enrollmentId)).toMatchObject({
      status: "completed",
      lastStepIndex: 2,
      nextStepIndex: null,
      dueAt: null,
    });
    const runs = await db().select().from(sequenceStepRuns).where(eq(sequenceStepRuns.enrollmentId, enrollmentId));
    expect(runs.map((r) => [r.stepIndex, r.solicitationId]).sort()).toEqual([
      [1, all[0]!.id],
      [2, all[1]!.id],
    ]);
    expect(creatorCalls.filter((c) => c.metadata.sequenceEnrollmentId === enrollmentId)).toHaveLength(2);
    expect((await auditOf(enrollmentId)).map((a) => a.action)).toEqual([
      "sequence.enrolled",
      "sequence.step_created",
      "sequence.completed",
    ]);
  });

  it("releases the claim when the creator fails, so the next sweep creates the step", async () => {
    const { contact, enrollmentId } = await enrolled();
    failOnceFor = enrollmentId;
    await runSequenceSweep(env, db(), at(2), fakeCreator);
    expect(await stepsOf(contact.id)).toHaveLength(0);
    expect(await enrollment(enrollmentId)).toMatchObject({ status: "active", nextStepIndex: 1 });
    await runSequenceSweep(env, db(), at(2, 1), fakeCreator);
    expect((await stepsOf(contact.id)).map((s) => s.sequenceStepIndex)).toEqual([1]);
  });

  it("stops instead of sending step 2 once the contact converted (solicitation.converted from step 1)", async () => {
    const { contact, enrollmentId } = await enrolled({ phone: "+14155550143" });
    await runSequenceSweep(env, db(), at(2), fakeCreator);
    const [step1] = await stepsOf(contact.id);
    const event: EventEnvelope = {
      id: `evt_${newId()}`,
      type: "solicitation.converted",
      tenantId: w.tenantA.id,
      occurredAt: nowIso(),
      data: { solicitationId: step1!.id },
    };
    const batch = createMessageBatch("events", [{ id: "conv", timestamp: new Date(), attempts: 1, body: event }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    await getQueueResult(batch, ctx);
    expect(await enrollment(enrollmentId)).toMatchObject({ status: "stopped", stopReason: "converted" });
    await runSequenceSweep(env, db(), at(6), fakeCreator);
    expect(await stepsOf(contact.id)).toHaveLength(1);
  });

  it("stops at due time when the origin has converted (convertedAt set without an event)", async () => {
    const { contact, enrollmentId, origin } = await enrolled();
    await db().update(solicitations).set({ convertedAt: nowIso() }).where(eq(solicitations.id, origin.id));
    await runSequenceSweep(env, db(), at(2), fakeCreator);
    expect(await stepsOf(contact.id)).toHaveLength(0);
    expect(await enrollment(enrollmentId)).toMatchObject({ status: "stopped", stopReason: "converted" });
  });

  it("sends nothing after the contact unsubscribes through the link", async () => {
    const { contact, enrollmentId, origin } = await enrolled();
    const res = await request("POST", `/unsubscribe/${origin.unsubscribeToken}`, {
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
    await runSequenceSweep(env, db(), at(6), fakeCreator);
    expect(await stepsOf(contact.id)).toHaveLength(0);
    expect(await enrollment(enrollmentId)).toMatchObject({ status: "stopped", stopReason: "unsubscribed" });
  });

  it("stops at due time for a suppressed contact or one whose channel consent was revoked another way", async () => {
    const a = await enrolled();
    const suppress = await w.as("manager").post(`/v1/contacts/${a.contact.id}/suppress`, { reason: "asked by phone" });
    expect(suppress.status).toBe(200);
    const b = await enrolled();
    await w.as("manager").delete(`/v1/contacts/${b.contact.id}/consent/email`);
    await runSequenceSweep(env, db(), at(2), fakeCreator);
    expect(await stepsOf(a.contact.id)).toHaveLength(0);
    expect(await stepsOf(b.contact.id)).toHaveLength(0);
    expect(await enrollment(a.enrollmentId)).toMatchObject({ status: "stopped", stopReason: "suppressed" });
    expect(await enrollment(b.enrollmentId)).toMatchObject({ status: "stopped", stopReason: "consent_revoked" });
  });

  it("stops when the campaign is deactivated", async () => {
    const campaign = await w
      .as("manager")
      .post("/v1/campaigns", { name: "Short drip", type: "drip", channels: ["email"] });
    await w.as("manager").put(`/v1/campaigns/${campaign.body.id}/sequence`, {
      steps: [
        { stepIndex: 0, channel: "email", delayDays: 0 },
        { stepIndex: 1, channel: "email", delayDays: 1 },
      ],
    });
    const contact = await createContact(w.as("manager"));
    const s = await seedSolicitation({
      tenantId: w.tenantA.id,
      locationId,
      contactId: contact.id,
      campaignId: campaign.body.id,
      sentAt: SENT_AT,
    });
    const row = (await db().select().from(solicitations).where(eq(solicitations.id, s.id)).get())!;
    const enrollmentId = (await enrollInSequence(ctxA(), row))!;
    await w.as("manager").post(`/v1/campaigns/${campaign.body.id}/deactivate`);
    await runSequenceSweep(env, db(), at(1), fakeCreator);
    expect(await enrollment(enrollmentId)).toMatchObject({ status: "stopped", stopReason: "campaign_inactive" });
  });
});

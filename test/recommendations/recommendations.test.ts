import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { analyticsFunnelDaily, analyticsResponseDaily, analyticsReviewDaily, auditEvents } from "../../src/db/schema";
import { systemContext } from "../../src/lib/system-context";
import { addDaysTo, dayOf } from "../../src/modules/analytics/dates";
import { recommendationSweep, wakeSnoozed } from "../../src/modules/recommendations/background";
import { generateRecommendations } from "../../src/modules/recommendations/rules";
import { createRecommendation, listRecommendationsForSkill } from "../../src/modules/recommendations/service";
import { newLocation } from "../analytics/helpers";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
let l1: { id: string };
let l2: { id: string };
let campaignId: string;
let experiment: { id: string; variants: { id: string; name: string }[] };
const rec: Record<string, any> = {};
const today = dayOf(new Date());
const daysAgo = (n: number) => addDaysTo(today, -n);

const funnel = (o: Partial<typeof analyticsFunnelDaily.$inferInsert> & { channel: string }) => ({
  tenantId: w.tenantA.id,
  day: daysAgo(2),
  locationId: l1.id,
  campaignId: "",
  templateId: "",
  variantId: "",
  requested: 0,
  sent: 0,
  delivered: 0,
  clicked: 0,
  converted: 0,
  blocked: 0,
  blockedByCap: 0,
  failed: 0,
  ...o,
});
const reviewDay = (day: string, o: Partial<typeof analyticsReviewDaily.$inferInsert>) => ({
  tenantId: w.tenantA.id,
  day,
  locationId: l1.id,
  siteType: "google",
  reviews: 0,
  rated: 0,
  ratingSum: 0,
  rating1: 0,
  rating2: 0,
  rating3: 0,
  rating4: 0,
  rating5: 0,
  positive: 0,
  neutral: 0,
  negative: 0,
  ...o,
});
const responseDay = (day: string, reviews: number, responded: number) => ({
  tenantId: w.tenantA.id,
  day,
  locationId: l1.id,
  reviews,
  responded,
  responseMinutes: [],
  slaCovered: 0,
  slaMet: 0,
  slaMissed: 0,
  slaOpenDue: [],
});

beforeAll(async () => {
  w = await createWorld();
  l1 = await newLocation(w, "manager", { googlePlaceId: "ChIJ-l1", name: "Downtown" });
  l2 = await newLocation(w, "manager", { name: "Airport" });
  campaignId = (
    await w
      .as("manager")
      .post("/v1/campaigns", { name: "Two channels", type: "continuous", channels: ["email", "sms"] })
  ).body.id;
  const expCampaign = (
    await w.as("manager").post("/v1/campaigns", { name: "Subject test", type: "continuous", channels: ["email"] })
  ).body.id;
  const created = await w.as("manager").post("/v1/experiments", {
    name: "Subject lines",
    hypothesis: "A bolder subject converts better",
    campaignId: expCampaign,
    variants: [
      { name: "Control", trafficPercent: 50 },
      { name: "Bold", trafficPercent: 50 },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  experiment = created.body;
  expect((await w.as("manager").post(`/v1/experiments/${experiment.id}/start`)).status).toBe(200);
  const [control, bold] = experiment.variants;

  await db()
    .insert(analyticsFunnelDaily)
    .values([
      // email converts 30% against sms 10% in the two-channel campaign
      funnel({ campaignId, channel: "email", requested: 100, sent: 100, delivered: 100, converted: 30 }),
      funnel({ campaignId, channel: "sms", requested: 100, sent: 100, delivered: 100, converted: 10 }),
      // the running experiment (started today, so only today's sends count): Bold 30% against Control 10%
      funnel({
        day: today,
        campaignId: expCampaign,
        channel: "email",
        variantId: control!.id,
        requested: 100,
        sent: 100,
        converted: 10,
      }),
      funnel({
        day: today,
        campaignId: expCampaign,
        channel: "email",
        variantId: bold!.id,
        requested: 100,
        sent: 100,
        converted: 30,
      }),
      // 50 of 450 requests blocked by caps
      funnel({ channel: "sms", requested: 50, blocked: 50, blockedByCap: 50 }),
    ]);
  await db()
    .insert(analyticsReviewDaily)
    .values([
      reviewDay(daysAgo(2), { reviews: 4, negative: 4, rated: 4, ratingSum: 4, rating1: 4 }),
      reviewDay(daysAgo(20), { reviews: 2, positive: 2, rated: 2, ratingSum: 10, rating5: 2 }),
    ]);
  await db()
    .insert(analyticsResponseDaily)
    .values([responseDay(daysAgo(2), 4, 0), responseDay(daysAgo(20), 2, 1)]);
});

describe("generation", () => {
  it("raises one recommendation per rule that fires, with priority, confidence, risk and action", async () => {
    const result = await generateRecommendations(await systemContext(env, w.tenantA.id, "test"));
    expect(result).toEqual({ considered: 6, created: 6 });
    const list = await w.as("viewer").get("/v1/recommendations?limit=50");
    expect(list.status).toBe(200);
    for (const r of list.body.data) rec[r.type] = r;
    expect(Object.keys(rec).sort()).toEqual([
      "better_channel",
      "better_variant",
      "frequency_cap_blocks",
      "low_response_rate",
      "missing_place_id",
      "negative_review_spike",
    ]);

    expect(rec.low_response_rate).toMatchObject({
      scopeType: "location",
      scopeId: l1.id,
      priority: "high",
      confidence: 0.3,
      riskLevel: "low",
      status: "pending",
      actionPayload: {
        kind: "create_sla_rule",
        rule: { filter: { locationId: [l1.id] }, responseWindowHours: 48, escalateAfterHours: 72 },
      },
      evidence: { reviews: 6, responded: 1 },
    });
    expect(rec.negative_review_spike).toMatchObject({
      scopeType: "location",
      scopeId: l1.id,
      priority: "critical",
      confidence: 0.9,
      riskLevel: "low",
      actionPayload: {
        kind: "create_sla_rule",
        rule: {
          filter: { locationId: [l1.id], sentiment: ["negative"] },
          responseWindowHours: 24,
          escalateToRole: "manager",
        },
      },
      evidence: { lastWeek: 4, weeklyBaseline: 0 },
    });
    expect(rec.better_channel).toMatchObject({
      scopeType: "campaign",
      scopeId: campaignId,
      priority: "medium",
      confidence: 1,
      riskLevel: "medium",
      actionPayload: { kind: "update_campaign", campaignId, patch: { channels: ["email"] } },
    });
    expect(rec.better_variant).toMatchObject({
      scopeType: "experiment",
      scopeId: experiment.id,
      priority: "high",
      riskLevel: "medium",
      actionPayload: {
        kind: "complete_experiment",
        experimentId: experiment.id,
        winnerVariantId: experiment.variants[1]!.id,
      },
    });
    expect(rec.missing_place_id).toMatchObject({
      scopeType: "location",
      scopeId: l2.id,
      priority: "medium",
      confidence: 1,
      riskLevel: "low",
      actionPayload: { kind: "update_location", locationId: l2.id, requiredInput: ["googlePlaceId"] },
    });
    expect(rec.frequency_cap_blocks).toMatchObject({
      scopeType: "tenant",
      scopeId: w.tenantA.id,
      priority: "medium",
      confidence: 1,
      riskLevel: "low",
      actionPayload: { kind: "none" },
      evidence: { requested: 450, blockedByCap: 50 },
    });
  });

  it("deduplicates: one open recommendation per rule and scope", async () => {
    expect(await generateRecommendations(await systemContext(env, w.tenantA.id, "test"))).toEqual({
      considered: 6,
      created: 0,
    });
    const again = await createRecommendation(await systemContext(env, w.tenantA.id, "test"), {
      type: "missing_place_id",
      scopeType: "location",
      scopeId: l2.id,
      title: "x",
      description: "y",
      priority: "low",
      confidence: 0.5,
      riskLevel: "low",
    });
    expect(again).toMatchObject({ created: false, recommendation: { id: rec.missing_place_id.id } });
  });

  it("the sweep runs each active tenant once a day", async () => {
    const day = new Date();
    expect(await recommendationSweep(env, db(), day)).toBeGreaterThanOrEqual(2);
    expect(await recommendationSweep(env, db(), day)).toBe(0);
  });

  it("lists with filters and pages; recommendation.list (MCP) takes a scope", async () => {
    const high = await w.as("viewer").get("/v1/recommendations?priority=high");
    expect(high.body.data.map((r: any) => r.type).sort()).toEqual(["better_variant", "low_response_rate"]);
    const medRisk = await w.as("viewer").get("/v1/recommendations?riskLevel=medium&scopeType=campaign");
    expect(medRisk.body.data.map((r: any) => r.type)).toEqual(["better_channel"]);
    const byScope = await w.as("viewer").get(`/v1/recommendations?scopeType=location&scopeId=${l1.id}&status=pending`);
    expect(byScope.body.total).toBe(2);
    const page = await w.as("viewer").get("/v1/recommendations?limit=4");
    expect(page.body.data).toHaveLength(4);
    const next = await w.as("viewer").get(`/v1/recommendations?limit=4&cursor=${page.body.pageInfo.endCursor}`);
    expect(next.body.data).toHaveLength(2);
    expect((await w.as("viewer").get("/v1/recommendations?riskLevel=extreme")).status).toBe(400);
    const skill = await listRecommendationsForSkill(await systemContext(env, w.tenantA.id, "test"), {
      scope: `location:${l2.id}`,
    });
    expect(skill.map((r) => r.type)).toEqual(["missing_place_id"]);
    expect(skill[0]).toMatchObject({ confidence: 1, riskLevel: "low" });
  });
});

describe("moves", () => {
  it("accept then apply runs the action through the SLA service; other moves are 409", async () => {
    const id = rec.low_response_rate.id;
    expect((await w.as("viewer").post(`/v1/recommendations/${id}/accept`)).status).toBe(403);
    const accepted = await w.as("manager").post(`/v1/recommendations/${id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: "accepted", decidedByUserId: w.users.manager.id });
    const twice = await w.as("manager").post(`/v1/recommendations/${id}/accept`);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "accepted", to: "accepted" } });
    expect(
      (
        await w
          .as("manager")
          .post(`/v1/recommendations/${id}/snooze`, { until: new Date(Date.now() + 86_400_000).toISOString() })
      ).body.details,
    ).toEqual({ from: "accepted", to: "snoozed" });

    expect((await w.as("manager").post(`/v1/recommendations/${id}/apply`, {})).status).toBe(403);
    const applied = await w.as("tenantAdmin").post(`/v1/recommendations/${id}/apply`, {});
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body).toMatchObject({ status: "applied" });
    expect(applied.body.appliedAt).toBeTruthy();
    const rules = await w.as("viewer").get("/v1/settings/sla-rules");
    expect(rules.body.data).toEqual([
      expect.objectContaining({
        name: "Answer reviews at Downtown within 48 h",
        filter: { locationId: [l1.id] },
        responseWindowHours: 48,
      }),
    ]);
    for (const move of ["accept", "reject", "apply"]) {
      const res = await w.as("tenantAdmin").post(`/v1/recommendations/${id}/${move}`, {});
      expect(res.status, move).toBe(409);
      expect(res.body.details.from).toBe("applied");
    }
    const audit = await db()
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.resourceId, id));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "recommendation.accept",
      "recommendation.apply",
      "recommendation.created",
    ]);
  });

  it("snooze, wake when due, then apply with the required input", async () => {
    const id = rec.missing_place_id.id;
    const past = await w.as("manager").post(`/v1/recommendations/${id}/snooze`, { until: "2020-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
    expect(past.body.details.issues[0].path).toBe("until");
    const until = new Date(Date.now() + 3600_000).toISOString();
    const snoozed = await w.as("manager").post(`/v1/recommendations/${id}/snooze`, { until });
    expect(snoozed.body).toMatchObject({ status: "snoozed", snoozedUntil: until });
    expect((await w.as("manager").post(`/v1/recommendations/${id}/snooze`, { until })).status).toBe(409);
    expect((await w.as("tenantAdmin").post(`/v1/recommendations/${id}/apply`, {})).body.details).toEqual({
      from: "snoozed",
      to: "applied",
    });

    expect(await wakeSnoozed(env, db(), new Date())).toBe(0);
    expect(await wakeSnoozed(env, db(), new Date(Date.now() + 2 * 3600_000))).toBe(1);
    const woken = await w.as("viewer").get(`/v1/recommendations/${id}`);
    expect(woken.body).toMatchObject({ status: "pending", snoozedUntil: null });

    const missing = await w.as("tenantAdmin").post(`/v1/recommendations/${id}/apply`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.details.issues).toEqual([
      { path: "input.googlePlaceId", message: "Required to apply this recommendation" },
    ]);
    expect((await w.as("viewer").get(`/v1/recommendations/${id}`)).body.status).toBe("pending");
    const applied = await w
      .as("tenantAdmin")
      .post(`/v1/recommendations/${id}/apply`, { input: { googlePlaceId: "ChIJ-airport" } });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await w.as("viewer").get(`/v1/locations/${l2.id}`)).body.googlePlaceId).toBe("ChIJ-airport");
  });

  it("snoozed can be accepted or rejected; rejected is final and not raised again", async () => {
    const id = rec.frequency_cap_blocks.id;
    await w
      .as("manager")
      .post(`/v1/recommendations/${id}/snooze`, { until: new Date(Date.now() + 86_400_000).toISOString() });
    const rejected = await w.as("manager").post(`/v1/recommendations/${id}/reject`);
    expect(rejected.body).toMatchObject({ status: "rejected", snoozedUntil: null });
    expect((await w.as("manager").post(`/v1/recommendations/${id}/accept`)).body.details).toEqual({
      from: "rejected",
      to: "accepted",
    });
    expect(await generateRecommendations(await systemContext(env, w.tenantA.id, "test"))).toMatchObject({ created: 0 });
  });

  it("apply patches the campaign and completes the experiment through their services", async () => {
    const ch = await w.as("tenantAdmin").post(`/v1/recommendations/${rec.better_channel.id}/apply`, {});
    expect(ch.status, JSON.stringify(ch.body)).toBe(200);
    expect((await w.as("viewer").get(`/v1/campaigns/${campaignId}`)).body.channels).toEqual(["email"]);
    const v = await w.as("tenantAdmin").post(`/v1/recommendations/${rec.better_variant.id}/apply`, {});
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect((await w.as("viewer").get(`/v1/experiments/${experiment.id}`)).body).toMatchObject({
      status: "completed",
      winnerVariantId: experiment.variants[1]!.id,
    });
  });

  it("a failing action leaves the status unchanged", async () => {
    const ctx = await systemContext(env, w.tenantA.id, "test");
    const { recommendation } = await createRecommendation(ctx, {
      type: "custom",
      scopeType: "location",
      scopeId: "nope",
      title: "Broken",
      description: "Points at an unknown location",
      priority: "low",
      confidence: 0.1,
      riskLevel: "high",
      actionPayload: { kind: "update_location", locationId: "nope", patch: { name: "X" } },
    });
    const res = await w.as("tenantAdmin").post(`/v1/recommendations/${recommendation.id}/apply`, {});
    expect(res.status).toBe(404);
    expect((await w.as("viewer").get(`/v1/recommendations/${recommendation.id}`)).body.status).toBe("pending");
  });

  it("another tenant's recommendation is 404 on every route", async () => {
    const { recommendation } = await createRecommendation(await systemContext(env, w.tenantB.id, "test"), {
      type: "custom",
      scopeType: "tenant",
      scopeId: w.tenantB.id,
      title: "B's",
      description: "B's",
      priority: "low",
      confidence: 0.5,
      riskLevel: "low",
    });
    expect((await w.as("viewer").get(`/v1/recommendations/${recommendation.id}`)).status).toBe(404);
    for (const move of ["accept", "reject", "apply"])
      expect((await w.as("tenantAdmin").post(`/v1/recommendations/${recommendation.id}/${move}`, {})).status).toBe(404);
    expect(
      (
        await w.as("tenantAdmin").post(`/v1/recommendations/${recommendation.id}/snooze`, {
          until: new Date(Date.now() + 3600_000).toISOString(),
        })
      ).status,
    ).toBe(404);
    const mine = await w.as("viewer").get("/v1/recommendations?limit=200");
    expect(mine.body.data.every((r: any) => r.tenantId === w.tenantA.id)).toBe(true);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantB.id), eq(auditEvents.action, "recommendation.created")));
    expect(audit).toHaveLength(1);
  });
});

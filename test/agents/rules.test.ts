import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";
import { seedSends } from "./helpers";

let w: World;
let locationId = "";
let campaignId = "";
let experimentId = "";
let variants: { id: string; name: string }[] = [];
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const at10 = (n: number) => `${day(n)}T10:00:00.000Z`;

const run = (name: string, input: unknown, as: Parameters<World["as"]>[0] = "viewer") =>
  w.as(as).post(`/v1/agents/${name}/run`, input);

beforeAll(async () => {
  w = await createWorld();
  locationId = (await w.as("manager").post("/v1/locations", { name: "Main St", timezone: "UTC" })).body.id;
  campaignId = (
    await w.as("manager").post("/v1/campaigns", {
      name: "After visit",
      type: "continuous",
      channels: ["email", "sms"],
      reviewDestination: "google",
      locationId,
    })
  ).body.id;
  // email converts 20%, sms 10%; every send at 10:00 UTC, conversions one day later
  await seedSends({
    tenantId: w.tenantA.id,
    locationId,
    campaignId,
    channel: "email",
    count: 100,
    converted: 20,
    sentAt: at10(5),
  });
  await seedSends({
    tenantId: w.tenantA.id,
    locationId,
    campaignId,
    channel: "sms",
    count: 100,
    converted: 10,
    sentAt: at10(6),
  });
  const exp = await w.as("manager").post("/v1/experiments", {
    name: "Subject test",
    hypothesis: "Shorter converts",
    campaignId,
    variants: [
      { name: "Control", trafficPercent: 50 },
      { name: "Short", trafficPercent: 50 },
    ],
  });
  experimentId = exp.body.id;
  variants = exp.body.variants;
  await seedSends({
    tenantId: w.tenantA.id,
    locationId,
    channel: "email",
    count: 1000,
    converted: 100,
    sentAt: at10(40),
    experimentId,
    variantId: variants[0]!.id,
  });
  await seedSends({
    tenantId: w.tenantA.id,
    locationId,
    channel: "email",
    count: 1000,
    converted: 130,
    sentAt: at10(40),
    experimentId,
    variantId: variants[1]!.id,
  });
  const rebuilt = await w.as("tenantAdmin").post("/v1/analytics/rebuild", { dateFrom: day(60), dateTo: day(0) });
  expect(rebuilt.status).toBe(200);
  // reviews: praise for staff early in the window, complaints about waiting lately
  for (const [n, rating, text, topics] of [
    [80, 5, "Lovely staff, very kind", ["staff"]],
    [70, 5, "Staff were great", ["staff"]],
    [20, 2, "Waited forever for a table", ["wait_time"]],
    [10, 1, "The wait was over an hour", ["wait_time"]],
    [5, 2, "Long wait again, staff overwhelmed", ["wait_time", "staff"]],
  ] as const) {
    const res = await w.as("manager").post("/v1/reviews/ingest", {
      locationId,
      siteType: "google",
      rating,
      text,
      topics,
      externalReviewId: `g-${n}`,
      publishedAt: `${day(n)}T12:00:00.000Z`,
    });
    expect(res.status).toBe(201);
  }
  // review rollups are written by the EVENTS consumer, off the request path: wait for all five (a test that
  // read them too early under a loaded run once saw "No reviews"; the wait fails loudly instead)
  await pollUntil(
    () =>
      env.DB.prepare("select coalesce(sum(reviews), 0) as n from analytics_review_daily where tenant_id = ?")
        .bind(w.tenantA.id)
        .first<{ n: number }>(),
    (rolled) => rolled!.n >= 5,
    60_000,
    250,
  );
}, 120_000);

describe("agent.campaign-strategist (rules)", () => {
  it("ranks channels by conversion, times by local hour, and derives the reminder delay", async () => {
    const res = await run("campaign-strategist", { locationId, dateFrom: day(30), dateTo: day(0) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      agent: "agent.campaign-strategist",
      engine: "rules",
      model: null,
      range: { from: day(30), to: day(0) },
    });
    const mix = res.body.output.channelMix;
    expect(mix.map((c: { channel: string }) => c.channel)).toEqual(["email", "sms"]);
    expect(mix[0]).toMatchObject({ sent: 100, converted: 20, conversionRate: 0.2, recommendedShare: 67 });
    expect(mix[1]).toMatchObject({ sent: 100, converted: 10, conversionRate: 0.1, recommendedShare: 33 });
    expect(mix[0].conversionRateCi.low).toBeCloseTo(0.1334, 3);
    expect(res.body.output.sendTiming.bestHours[0]).toMatchObject({
      hour: 10,
      sent: 200,
      converted: 30,
      conversionRate: 0.15,
    });
    expect(res.body.output.destination).toMatchObject({ recommended: "google" });
    expect(res.body.output.sequence.steps).toEqual([
      { stepIndex: 0, channel: "email", delayDays: 0 },
      { stepIndex: 1, channel: "sms", delayDays: 1 },
    ]);
    expect(res.body.toolCalls.map((c: { tool: string }) => c.tool)).toContain("analytics.send-timing");
  });
});

describe("agent.experiment-designer (rules)", () => {
  it("computes the sample size per variant: p1=0.10, p2=0.12, alpha 0.05 two-sided, power 0.8 -> 3,841", async () => {
    const res = await run("agent.experiment-designer", { baselineRate: 0.1, minimumDetectableEffect: 0.02 });
    expect(res.status).toBe(200);
    expect(res.body.output).toMatchObject({
      sampleSizePerVariant: 3841,
      totalSampleSize: 7682,
      alphaPerComparison: 0.05,
      variants: [{ trafficPercent: 50, isControl: true }, { trafficPercent: 50 }],
    });
    expect(res.body.output.baseline).toEqual({ rate: 0.1, source: "input", sent: null, successes: null });
  });

  it("takes the baseline and daily volume from the campaign's history; three arms split 34/33/33 with Bonferroni", async () => {
    const res = await run("experiment-designer", {
      campaignId,
      minimumDetectableEffect: 0.05,
      variants: 3,
      dateFrom: day(9),
      dateTo: day(0),
    });
    expect(res.status).toBe(200);
    const o = res.body.output;
    expect(o.baseline).toEqual({ rate: 0.15, source: "history", sent: 200, successes: 30 });
    expect(o.alphaPerComparison).toBe(0.025);
    expect(o.variants.map((v: { trafficPercent: number }) => v.trafficPercent)).toEqual([34, 33, 33]);
    expect(o.dailySends).toBe(20);
    expect(o.estimatedDays).toBe(Math.ceil((o.sampleSizePerVariant * 3) / 20));
  });

  it("refuses to guess a baseline when the window has no conversions", async () => {
    const res = await run("experiment-designer", {
      minimumDetectableEffect: 0.02,
      dateFrom: "2020-01-01",
      dateTo: "2020-01-31",
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("baselineRate");
  });
});

describe("agent.outcome-analyst (rules)", () => {
  it("gives rates, Wilson intervals and the z-test p-value of the variant against the control", async () => {
    const res = await run("outcome-analyst", { experimentId });
    expect(res.status).toBe(200);
    const [control, short] = res.body.output.groups;
    expect(control).toMatchObject({
      key: variants[0]!.id,
      isBaseline: true,
      sent: 1000,
      converted: 100,
      conversionRate: 0.1,
      vsBaseline: null,
    });
    expect(control.conversionRateCi.low).toBeCloseTo(0.0829, 4);
    expect(control.conversionRateCi.high).toBeCloseTo(0.1202, 4);
    // pooled p = 0.115, se = 0.014267, z = 2.1027, two-sided p = 0.0355
    expect(short.vsBaseline.conversionRate.z).toBeCloseTo(2.1027, 3);
    expect(short.vsBaseline.conversionRate.pValue).toBeCloseTo(0.0355, 3);
    expect(short.vsBaseline.conversionRate.significant).toBe(true);
    expect(res.body.output.winner).toBe(variants[1]!.id);
    expect(res.body.output.verdict).toMatch(/Short converts better than Control: 13% vs 10%/);
    expect(res.body.range).toBeNull();
  });

  it("another tenant's experiment is 404", async () => {
    const b = await w.as("tenantBAdmin").post("/v1/experiments", {
      name: "B",
      hypothesis: "h",
      variants: [
        { name: "A", trafficPercent: 50 },
        { name: "B", trafficPercent: 50 },
      ],
    });
    expect((await run("outcome-analyst", { experimentId: b.body.id })).status).toBe(404);
  });
});

describe("agent.reputation-insight (rules)", () => {
  it("finds the rating trend, top themes and the emerging wait-time issue with quoted excerpts", async () => {
    const res = await run("reputation-insight", { locationId, dateFrom: day(89), dateTo: day(0) });
    expect(res.status).toBe(200);
    const loc = res.body.output.locations[0];
    expect(loc).toMatchObject({
      locationId,
      reviews: 5,
      averageRating: 3,
      ratingTrend: { earlierAverage: 5, recentAverage: 1.67, change: -3.33, direction: "down" },
    });
    expect(loc.topThemes[0]).toMatchObject({ topic: "staff", mentions: 3 });
    expect(loc.emergingIssues[0]).toMatchObject({ topic: "wait_time", earlierNegative: 0, recentNegative: 3 });
    expect(loc.emergingIssues[0].excerpts.map((e: { text: string }) => e.text)).toContain("The wait was over an hour");
    expect(loc.emergingIssues[0].evidence).toHaveLength(3);
  });
});

describe("agent.compliance-critic (rules)", () => {
  it("flags a template without an unsubscribe link and review-gating wording", async () => {
    const tpl = await w.as("manager").post("/v1/templates", {
      name: "Gated",
      channel: "email",
      subject: "Thanks {{firstName}}",
      bodyHtml: "<p>If you had a great experience, please leave us a 5-star review: {{reviewLink}}</p>",
    });
    const res = await run("compliance-critic", { templateId: tpl.body.id });
    expect(res.status).toBe(200);
    const rules = res.body.output.findings.map((f: { rule: string }) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(["unsubscribe_missing", "review_gating"]));
    const gating = res.body.output.findings.find((f: { rule: string }) => f.rule === "review_gating");
    expect(gating).toMatchObject({ severity: "high" });
    expect(gating.evidence[0]).toMatchObject({
      source: "template.get",
      id: tpl.body.id,
      value: "If you had a great experience, please leave us a 5-star review: {{reviewLink}}",
    });
    expect(res.body.output.passed).toBe(false);
  });

  it("flags incentive wording, SMS without opt-out and its segment cost; a clean draft passes", async () => {
    const sms = await run("compliance-critic", {
      draft: { channel: "sms", bodyText: "Leave a positive review and get 10% off your next visit! 😀 {{reviewLink}}" },
    });
    const byRule = Object.fromEntries(sms.body.output.findings.map((f: { rule: string }) => [f.rule, f]));
    expect(byRule.review_incentive.severity).toBe("critical");
    expect(byRule.sms_opt_out_missing.severity).toBe("medium");
    expect(byRule.sms_segment_cost.evidence).toEqual(
      expect.arrayContaining([expect.objectContaining({ label: "encoding", value: "UCS-2" })]),
    );
    const clean = await run("compliance-critic", {
      draft: {
        channel: "email",
        subject: "How did we do?",
        bodyText: "Tell us how we did: {{reviewLink}}\nUnsubscribe: {{unsubscribeLink}}",
      },
    });
    expect(clean.body.output).toMatchObject({ findings: [], passed: true });
  });

  it("reviews a campaign's settings: SMS without required opt-in", async () => {
    await w.as("tenantAdmin").put("/v1/compliance", { requireSmsOptIn: false });
    const res = await run("compliance-critic", { campaignId });
    expect(res.body.output.findings.map((f: { rule: string }) => f.rule)).toContain("sms_consent_not_required");
    expect(res.body.output.target).toEqual({ kind: "campaign", id: campaignId });
  });

  it("validates the input (exactly one target) and 404s another tenant's template", async () => {
    const bad = await run("compliance-critic", {});
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].message).toMatch(/exactly one/);
    const bTpl = await w.as("tenantBAdmin").post("/v1/templates", { name: "B", channel: "sms", bodyText: "hi" });
    expect((await run("compliance-critic", { templateId: bTpl.body.id })).status).toBe(404);
  });
});

describe("agent.optimization (rules)", () => {
  it("ranks a channel shift with its computed impact", async () => {
    const res = await run("optimization", { dateFrom: day(30), dateTo: day(0) });
    expect(res.status).toBe(200);
    const shift = res.body.output.actions.find((a: { kind: string }) => a.kind === "channel_shift");
    expect(shift).toMatchObject({
      title: "Send more requests by email instead of sms",
      expectedImpact: { estimate: 10, unit: "reviews" },
    });
    expect(res.body.output.actions.map((a: { rank: number }) => a.rank)).toEqual(
      res.body.output.actions.map((_: unknown, k: number) => k + 1),
    );
  });
});

describe("agent.template-generator (rules)", () => {
  it("writes drafts in the brand voice that pass the lint", async () => {
    await w
      .as("tenantAdmin")
      .patch(`/v1/brands/${w.tenantA.brandId}`, { brandVoice: "professional", brandTone: "warm" });
    const res = await run("template-generator", { brandId: w.tenantA.brandId });
    expect(res.status).toBe(200);
    const [email, sms] = res.body.output.drafts;
    expect(email).toMatchObject({ channel: "email", passed: true, findings: [], createdTemplateId: null });
    expect(email.bodyText).toMatch(/^Dear \{\{firstName\}\},/);
    expect(email.tokens).toEqual(expect.arrayContaining(["reviewLink", "unsubscribeLink"]));
    expect(sms.bodyText).toMatch(/Reply STOP to opt out$/);
    expect(sms.sms).toMatchObject({ encoding: "GSM-7", segments: 1 });
  });

  it("creates draft templates only for callers who write", async () => {
    const viewer = await run("template-generator", { channels: ["sms"], create: true }, "viewer");
    expect(viewer.status).toBe(403);
    const res = await run(
      "template-generator",
      { channels: ["sms"], locale: "es", create: true, name: "Pedido" },
      "tenantUser",
    );
    expect(res.status).toBe(200);
    const id = res.body.output.drafts[0].createdTemplateId;
    const tpl = await w.as("viewer").get(`/v1/templates/${id}`);
    expect(tpl.body).toMatchObject({ status: "draft", channel: "sms", name: "Pedido (sms)" });
  });
});

describe("agent.operator-copilot (rules)", () => {
  it("routes the question to read skills and cites them", async () => {
    const res = await run("operator-copilot", {
      question: "How are our reviews and ratings doing?",
      dateFrom: day(89),
    });
    expect(res.status).toBe(200);
    expect(res.body.output.intents).toEqual(["review_summary"]);
    expect(res.body.output.citations[0]).toMatchObject({ index: 1, tool: "review.summary" });
    expect(res.body.output.answer).toMatch(/^5 reviews since .*averaging 3\.00 stars.*\[1\]$/);
  });
});

describe("runtime", () => {
  it("unknown agent 404, and every run is audited with engine, outcome and tool calls", async () => {
    expect((await run("nope", {})).status).toBe(404);
    expect((await run("reply-drafter", { reviewId: "x" })).status).toBe(404);
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "agent.run")));
    const critic = rows.filter((r) => r.resourceId === "agent.compliance-critic");
    expect(critic.length).toBeGreaterThanOrEqual(4);
    expect(critic.map((r) => (r.metadata as { outcome: string }).outcome)).toEqual(
      expect.arrayContaining(["success", "invalid_input", "error"]),
    );
    expect((critic[0]!.metadata as { engine: string }).engine).toBe("rules");
  });

  it("lists the agents and their schemas", async () => {
    const list = await w.as("viewer").get("/v1/agents");
    expect(list.body.data.map((a: { name: string }) => a.name)).toHaveLength(8);
    const schemas = await w.as("viewer").get("/v1/agents/schemas");
    expect(schemas.body["agent.experiment-designer"].input.required).toEqual(["minimumDetectableEffect"]);
  });
});

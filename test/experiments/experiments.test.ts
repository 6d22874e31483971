import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { domainEvents } from "../../src/db/schema";
import { installHooks } from "../../src/hooks";
import { experimentResults } from "../../src/modules/experiments/service";
import { HOOKS } from "../../src/wiring";
import { auditOf, tenantCtx } from "../campaigns/support";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
let campaignId: string;
let templateId: string;
let bExperimentId: string;

const body = (extra: object = {}) => ({
  name: "Subject line test",
  hypothesis: "A personal subject lifts conversions",
  variants: [
    { name: "Control", trafficPercent: 50 },
    { name: "Personal", trafficPercent: 50 },
  ],
  ...extra,
});

beforeAll(async () => {
  w = await createWorld();
  campaignId = (await w.as("manager").post("/v1/campaigns", { name: "C", type: "one_time", channels: ["email"] })).body
    .id;
  templateId = (
    await w.as("manager").post("/v1/templates", { name: "T", channel: "email", subject: "Hi", bodyText: "x" })
  ).body.id;
  bExperimentId = (await w.as("tenantBAdmin").post("/v1/experiments", body())).body.id;
});

describe("create and read", () => {
  it("creates a draft with variant ids; the first variant is the control", async () => {
    const res = await w.as("manager").post(
      "/v1/experiments",
      body({
        campaignId,
        variants: [
          { name: "Control", trafficPercent: 33.4, templateId },
          { name: "B", trafficPercent: 33.3, config: { subject: "Hey {{firstName}}" } },
          { name: "C", trafficPercent: 33.3 },
        ],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      name: "Subject line test",
      hypothesis: "A personal subject lifts conversions",
      campaignId,
      locationId: null,
      status: "draft",
      winnerVariantId: null,
      startedAt: null,
      completedAt: null,
    });
    expect(res.body.variants).toEqual([
      { id: expect.any(String), name: "Control", trafficPercent: 33.4, templateId, config: {} },
      {
        id: expect.any(String),
        name: "B",
        trafficPercent: 33.3,
        templateId: null,
        config: { subject: "Hey {{firstName}}" },
      },
      { id: expect.any(String), name: "C", trafficPercent: 33.3, templateId: null, config: {} },
    ]);
    expect((await w.as("viewer").get(`/v1/experiments/${res.body.id}`)).body).toEqual(res.body);
    expect((await auditOf(res.body.id, "experiment.created"))[0]).toMatchObject({ actorId: w.users.manager.id });
  });

  it.each([
    ["one variant", { variants: [{ name: "Only", trafficPercent: 100 }] }, "variants"],
    [
      "150 percent",
      {
        variants: [
          { name: "A", trafficPercent: 150 },
          { name: "B", trafficPercent: -50 },
        ],
      },
      "variants.0.trafficPercent",
    ],
    [
      "a sum of 90",
      {
        variants: [
          { name: "A", trafficPercent: 40 },
          { name: "B", trafficPercent: 50 },
        ],
      },
      "variants",
    ],
    [
      "repeated names",
      {
        variants: [
          { name: "A", trafficPercent: 50 },
          { name: "a", trafficPercent: 50 },
        ],
      },
      "variants",
    ],
    ["no hypothesis", { hypothesis: "" }, "hypothesis"],
  ])("refuses %s with 400", async (_, extra, path) => {
    const res = await w.as("manager").post("/v1/experiments", body(extra));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it("says why a sum is wrong", async () => {
    const res = await w.as("manager").post(
      "/v1/experiments",
      body({
        variants: [
          { name: "A", trafficPercent: 40 },
          { name: "B", trafficPercent: 50 },
        ],
      }),
    );
    expect(res.body.details.issues).toEqual([{ path: "variants", message: "trafficPercent must add up to 100" }]);
  });

  it("refuses another tenant's campaign, location or template with 400", async () => {
    const bCampaign = (
      await w.as("tenantBAdmin").post("/v1/campaigns", { name: "B", type: "one_time", channels: ["sms"] })
    ).body.id;
    const bLocation = (await w.as("tenantBAdmin").post("/v1/locations", { name: "B" })).body.id;
    const res = await w.as("manager").post("/v1/experiments", body({ campaignId: bCampaign, locationId: bLocation }));
    expect(res.body.details.issues).toEqual([
      { path: "campaignId", message: "Unknown campaign" },
      { path: "locationId", message: "Unknown location" },
    ]);
    const bTemplate = (await w.as("tenantBAdmin").post("/v1/templates", { name: "T", channel: "sms" })).body.id;
    const tpl = await w.as("manager").post(
      "/v1/experiments",
      body({
        variants: [
          { name: "A", trafficPercent: 50, templateId: bTemplate },
          { name: "B", trafficPercent: 50 },
        ],
      }),
    );
    expect(tpl.body.details.issues).toEqual([{ path: "variants.0.templateId", message: "Unknown template" }]);
  });

  it("needs manager to create", async () => {
    expect((await w.as("tenantUser").post("/v1/experiments", body())).status).toBe(403);
    expect((await w.as("viewer").post("/v1/experiments", body())).status).toBe(403);
  });

  it("lists newest first, optionally by campaign", async () => {
    const all = await w.as("viewer").get("/v1/experiments");
    expect(all.status).toBe(200);
    expect(all.body.length).toBeGreaterThanOrEqual(1);
    expect(all.body.map((e: { id: string }) => e.id)).not.toContain(bExperimentId);
    const byCampaign = await w.as("viewer").get(`/v1/experiments?campaignId=${campaignId}`);
    expect(byCampaign.body.every((e: { campaignId: string }) => e.campaignId === campaignId)).toBe(true);
    expect((await w.as("viewer").get("/v1/experiments?campaignId=none")).body).toEqual([]);
  });
});

describe("status transitions", () => {
  let id: string;

  it("draft -> running -> paused -> running -> completed", async () => {
    id = (await w.as("manager").post("/v1/experiments", body())).body.id;
    const started = await w.as("manager").post(`/v1/experiments/${id}/start`);
    expect(started.body).toMatchObject({ status: "running", completedAt: null });
    expect(Date.parse(started.body.startedAt)).not.toBeNaN();
    expect((await w.as("manager").post(`/v1/experiments/${id}/pause`)).body.status).toBe("paused");
    const resumed = await w.as("manager").post(`/v1/experiments/${id}/resume`);
    expect(resumed.body).toMatchObject({ status: "running", startedAt: started.body.startedAt });
    const done = await w.as("tenantAdmin").post(`/v1/experiments/${id}/complete`);
    expect(done.body).toMatchObject({ status: "completed", winnerVariantId: null });
    expect(Date.parse(done.body.completedAt)).not.toBeNaN();
    expect((await auditOf(id)).map((a) => a.action)).toEqual([
      "experiment.created",
      "experiment.started",
      "experiment.paused",
      "experiment.resumed",
      "experiment.completed",
    ]);
  });

  it.each([
    ["completed", "start", "running"],
    ["completed", "pause", "paused"],
    ["completed", "complete", "completed"],
  ])("from %s, %s is 409", async (from, move, to) => {
    const res = await w.as("tenantAdmin").post(`/v1/experiments/${id}/${move}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from, to } });
  });

  it("a draft cannot be paused, resumed or completed", async () => {
    const draft = (await w.as("manager").post("/v1/experiments", body())).body.id;
    for (const [move, to] of [
      ["pause", "paused"],
      ["resume", "running"],
      ["complete", "completed"],
    ]) {
      const res = await w.as("tenantAdmin").post(`/v1/experiments/${draft}/${move}`);
      expect(res.body, move).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "draft", to } });
    }
    const running = await w.as("manager").post(`/v1/experiments/${draft}/start`);
    expect((await w.as("manager").post(`/v1/experiments/${running.body.id}/resume`)).body.details).toEqual({
      from: "running",
      to: "running",
    });
  });

  it("runs at most one experiment per campaign", async () => {
    const first = (await w.as("manager").post("/v1/experiments", body({ campaignId }))).body.id;
    const second = (await w.as("manager").post("/v1/experiments", body({ campaignId }))).body.id;
    expect((await w.as("manager").post(`/v1/experiments/${first}/start`)).status).toBe(200);
    const clash = await w.as("manager").post(`/v1/experiments/${second}/start`);
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("CONFLICT");
    expect((await w.as("viewer").get(`/v1/experiments/${second}`)).body.status).toBe("draft");
    await w.as("manager").post(`/v1/experiments/${first}/pause`);
    expect((await w.as("manager").post(`/v1/experiments/${second}/start`)).status).toBe(200);
    expect((await w.as("manager").post(`/v1/experiments/${first}/resume`)).status).toBe(409);
  });

  it("roles: start/pause/resume need manager, complete needs tenant_admin", async () => {
    const e = (await w.as("manager").post("/v1/experiments", body())).body.id;
    expect((await w.as("tenantUser").post(`/v1/experiments/${e}/start`)).status).toBe(403);
    await w.as("manager").post(`/v1/experiments/${e}/start`);
    expect((await w.as("manager").post(`/v1/experiments/${e}/complete`)).status).toBe(403);
  });
});

describe("PATCH", () => {
  it("renames and edits the hypothesis (tenant_admin only)", async () => {
    const id = (await w.as("manager").post("/v1/experiments", body())).body.id;
    expect((await w.as("manager").patch(`/v1/experiments/${id}`, { name: "New" })).status).toBe(403);
    const res = await w.as("tenantAdmin").patch(`/v1/experiments/${id}`, { name: "New", hypothesis: "Changed" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "New", hypothesis: "Changed", status: "draft" });
    expect((await auditOf(id, "experiment.updated"))[0]).toMatchObject({
      previousState: expect.objectContaining({ name: "Subject line test" }),
      nextState: expect.objectContaining({ name: "New" }),
    });
  });

  it("picks a winner: completes the experiment and emits experiment.completed", async () => {
    const created = (await w.as("manager").post("/v1/experiments", body())).body;
    const winner = created.variants[1].id;
    const early = await w.as("tenantAdmin").patch(`/v1/experiments/${created.id}`, { winnerVariantId: winner });
    expect(early.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "draft", to: "completed" } });
    await w.as("manager").post(`/v1/experiments/${created.id}/start`);
    const unknown = await w.as("tenantAdmin").patch(`/v1/experiments/${created.id}`, { winnerVariantId: "nope" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.issues).toEqual([
      { path: "winnerVariantId", message: "Not a variant of this experiment" },
    ]);

    const res = await w
      .as("tenantAdmin")
      .patch(`/v1/experiments/${created.id}`, { winnerVariantId: winner, hypothesis: "Confirmed" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "completed", winnerVariantId: winner, hypothesis: "Confirmed" });
    const events = await db().select().from(domainEvents).where(eq(domainEvents.type, "experiment.completed"));
    expect(events.filter((e) => e.data.experimentId === created.id)).toEqual([
      expect.objectContaining({
        tenantId: w.tenantA.id,
        data: { experimentId: created.id, campaignId: null, winnerVariantId: winner },
      }),
    ]);
    expect((await auditOf(created.id, "experiment.completed"))[0]).toMatchObject({
      nextState: expect.objectContaining({ winnerVariantId: winner }),
    });
    expect((await w.as("tenantAdmin").patch(`/v1/experiments/${created.id}`, { winnerVariantId: winner })).status).toBe(
      409,
    );
  });
});

describe("results", () => {
  it("reports zero counts and no tests while nothing has been sent", async () => {
    const e = (await w.as("manager").post("/v1/experiments", body())).body;
    const res = await w.as("viewer").get(`/v1/experiments/${e.id}/results`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      experimentId: e.id,
      status: "draft",
      controlVariantId: e.variants[0].id,
      winnerVariantId: null,
      significanceLevel: 0.05,
    });
    expect(res.body.variants).toEqual([
      {
        variantId: e.variants[0].id,
        name: "Control",
        trafficPercent: 50,
        isControl: true,
        sent: 0,
        delivered: 0,
        clicked: 0,
        converted: 0,
        deliveryRate: null,
        clickRate: null,
        conversionRate: null,
        vsControl: null,
      },
      {
        variantId: e.variants[1].id,
        name: "Personal",
        trafficPercent: 50,
        isControl: false,
        sent: 0,
        delivered: 0,
        clicked: 0,
        converted: 0,
        deliveryRate: null,
        clickRate: null,
        conversionRate: null,
        vsControl: { clickRate: null, conversionRate: null },
      },
    ]);
  });

  it("takes counts from the outcome source, passed in or registered", async () => {
    const e = (await w.as("manager").post("/v1/experiments", body())).body;
    const counts = new Map([
      [e.variants[0].id, { sent: 1000, delivered: 990, clicked: 400, converted: 200 }],
      [e.variants[1].id, { sent: 1000, delivered: 985, clicked: 420, converted: 250 }],
    ]);
    const direct = await experimentResults(tenantCtx(w.tenantA.id), e.id, async (_ctx, exp) =>
      exp.id === e.id ? counts : new Map(),
    );
    expect(direct.variants[1]).toMatchObject({ converted: 250, conversionRate: 0.25 });
    expect(direct.variants[1]!.vsControl!.conversionRate).toMatchObject({ significant: true });
    expect(direct.variants[1]!.vsControl!.conversionRate!.pValue).toBeCloseTo(0.0074196, 5);

    installHooks({ ...HOOKS, experimentOutcomes: async () => counts });
    try {
      const res = await w.as("viewer").get(`/v1/experiments/${e.id}/results`);
      expect(res.body.variants[0]).toMatchObject({ sent: 1000, delivered: 990, deliveryRate: 0.99, clickRate: 0.4 });
      expect(res.body.variants[1].vsControl.clickRate).toMatchObject({
        significant: false,
        lift: expect.closeTo(0.05, 10),
      });
    } finally {
      installHooks(HOOKS);
    }
  });
});

describe("tenant isolation", () => {
  it("treats another tenant's experiment as not found on every route", async () => {
    const a = w.as("tenantAdmin");
    const res = await Promise.all([
      a.get(`/v1/experiments/${bExperimentId}`),
      a.patch(`/v1/experiments/${bExperimentId}`, { name: "x" }),
      a.post(`/v1/experiments/${bExperimentId}/start`),
      a.post(`/v1/experiments/${bExperimentId}/pause`),
      a.post(`/v1/experiments/${bExperimentId}/resume`),
      a.post(`/v1/experiments/${bExperimentId}/complete`),
      a.get(`/v1/experiments/${bExperimentId}/results`),
    ]);
    expect(res.map((r) => r.status)).toEqual(Array(7).fill(404));
    expect((await w.as("tenantBAdmin").get(`/v1/experiments/${bExperimentId}`)).body).toMatchObject({
      status: "draft",
      name: "Subject line test",
    });
  });
});

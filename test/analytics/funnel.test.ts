import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { analyticsFunnelDaily, auditEvents, solicitations } from "../../src/db/schema";
import { applyEventToRollups } from "../../src/modules/analytics/events";
import { createWorld, db, type World } from "../helpers/seed";
import { deliver, envelope, newLocation, seedSolicitation } from "./helpers";

let w: World;
let l1: { id: string; brandId: string };
let l2: { id: string };
let c1: string;
let c2: string;
const ids: Record<string, string> = {};

const at = (day: string, hh = "10") => `${day}T${hh}:00:00.000Z`;

beforeAll(async () => {
  w = await createWorld();
  l1 = await newLocation(w);
  l2 = await newLocation(w);
  c1 = (await w.as("manager").post("/v1/campaigns", { name: "Spring", type: "one_time", channels: ["email", "sms"] }))
    .body.id;
  c2 = (await w.as("manager").post("/v1/campaigns", { name: "WA", type: "one_time", channels: ["whatsapp"] })).body.id;
  const t = w.tenantA.id;
  const d1 = "2026-03-02";
  const d2 = "2026-03-03";
  const rows = [
    {
      key: "s1",
      locationId: l1.id,
      createdAt: at(d1),
      channel: "email",
      campaignId: c1,
      templateId: "T1",
      variantId: "vA",
      status: "DELIVERED",
      sentAt: at(d1, "11"),
      deliveredAt: at(d1, "11"),
      clickedAt: at(d1, "12"),
      convertedAt: at(d1, "13"),
    },
    {
      key: "s2",
      locationId: l1.id,
      createdAt: at(d1),
      channel: "email",
      campaignId: c1,
      templateId: "T1",
      variantId: "vA",
      status: "DELIVERED",
      sentAt: at(d1, "11"),
      deliveredAt: at(d1, "11"),
      clickedAt: at("2026-03-05"),
    },
    {
      key: "s3",
      locationId: l1.id,
      createdAt: at(d1),
      channel: "email",
      campaignId: c1,
      templateId: "T2",
      variantId: "vB",
      status: "SENT",
      sentAt: at(d1, "11"),
    },
    {
      key: "s4",
      locationId: l1.id,
      createdAt: at(d1),
      channel: "sms",
      campaignId: c1,
      templateId: "T3",
      status: "BLOCKED",
      blockedReason: "FREQUENCY_CAP_DAILY",
    },
    {
      key: "s5",
      locationId: l1.id,
      createdAt: at(d1),
      channel: "sms",
      campaignId: c1,
      templateId: "T3",
      status: "FAILED",
    },
    {
      key: "s6",
      locationId: l1.id,
      createdAt: at(d1),
      channel: "sms",
      campaignId: c1,
      templateId: "T3",
      status: "BOUNCED",
      sentAt: at(d1, "11"),
    },
    {
      key: "s7",
      locationId: l2.id,
      createdAt: at(d2),
      channel: "sms",
      status: "DELIVERED",
      sentAt: at(d2),
      deliveredAt: at(d2),
      clickedAt: at(d2),
      convertedAt: at(d2, "15"),
    },
    {
      key: "s8",
      locationId: l2.id,
      createdAt: at(d2),
      channel: "whatsapp",
      campaignId: c2,
      templateId: "T4",
      status: "BLOCKED",
      blockedReason: "QUIET_HOURS",
    },
    {
      key: "s9",
      locationId: l1.id,
      createdAt: at(d2),
      channel: "email",
      campaignId: c1,
      templateId: "T1",
      variantId: "vA",
      status: "PENDING",
    },
    {
      key: "s10",
      locationId: l1.id,
      createdAt: at("2026-02-20"),
      channel: "email",
      campaignId: c1,
      templateId: "T1",
      variantId: "vA",
      status: "DELIVERED",
      sentAt: at("2026-02-20"),
      deliveredAt: at("2026-02-20"),
    },
  ] as const;
  for (const { key, ...r } of rows) ids[key] = (await seedSolicitation(t, r as any)).id!;
  // one event per solicitation, as sending emits them
  await deliver(Object.values(ids).map((id) => envelope(t, "solicitation.created", { solicitationId: id })));
});

const range = "dateFrom=2026-03-01&dateTo=2026-03-31";
const counts = (o: Record<string, number | null>) => ({
  requested: 0,
  sent: 0,
  delivered: 0,
  clicked: 0,
  converted: 0,
  blocked: 0,
  blockedByCap: 0,
  failed: 0,
  deliveryRate: null,
  clickRate: null,
  conversionRate: null,
  ...o,
});

describe("GET /v1/analytics/funnel", () => {
  it("matches the hand-built data set: totals, per channel, template, campaign and variant", async () => {
    const res = await w.as("viewer").get(`/v1/analytics/funnel?${range}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.range).toEqual({ dateFrom: "2026-03-01", dateTo: "2026-03-31" });
    expect(res.body.totals).toEqual(
      counts({
        requested: 9,
        sent: 5,
        delivered: 3,
        clicked: 3,
        converted: 2,
        blocked: 2,
        blockedByCap: 1,
        failed: 2,
        deliveryRate: 0.6,
        clickRate: 0.6,
        conversionRate: 0.4,
      }),
    );
    expect(res.body.byChannel).toEqual([
      {
        channel: "email",
        ...counts({
          requested: 4,
          sent: 3,
          delivered: 2,
          clicked: 2,
          converted: 1,
          deliveryRate: 0.6667,
          clickRate: 0.6667,
          conversionRate: 0.3333,
        }),
      },
      {
        channel: "sms",
        ...counts({
          requested: 4,
          sent: 2,
          delivered: 1,
          clicked: 1,
          converted: 1,
          blocked: 1,
          blockedByCap: 1,
          failed: 2,
          deliveryRate: 0.5,
          clickRate: 0.5,
          conversionRate: 0.5,
        }),
      },
      { channel: "whatsapp", ...counts({ requested: 1, blocked: 1 }) },
    ]);
    const byTemplate = Object.fromEntries(res.body.byTemplate.map((x: any) => [x.templateId, x]));
    expect(byTemplate).toEqual({
      null: {
        templateId: null,
        ...counts({
          requested: 1,
          sent: 1,
          delivered: 1,
          clicked: 1,
          converted: 1,
          deliveryRate: 1,
          clickRate: 1,
          conversionRate: 1,
        }),
      },
      T1: {
        templateId: "T1",
        ...counts({
          requested: 3,
          sent: 2,
          delivered: 2,
          clicked: 2,
          converted: 1,
          deliveryRate: 1,
          clickRate: 1,
          conversionRate: 0.5,
        }),
      },
      T2: { templateId: "T2", ...counts({ requested: 1, sent: 1, deliveryRate: 0, clickRate: 0, conversionRate: 0 }) },
      T3: {
        templateId: "T3",
        ...counts({
          requested: 3,
          sent: 1,
          blocked: 1,
          blockedByCap: 1,
          failed: 2,
          deliveryRate: 0,
          clickRate: 0,
          conversionRate: 0,
        }),
      },
      T4: { templateId: "T4", ...counts({ requested: 1, blocked: 1 }) },
    });
    const byCampaign = Object.fromEntries(res.body.byCampaign.map((x: any) => [x.campaignId, x]));
    expect(byCampaign[c1]).toEqual({
      campaignId: c1,
      ...counts({
        requested: 7,
        sent: 4,
        delivered: 2,
        clicked: 2,
        converted: 1,
        blocked: 1,
        blockedByCap: 1,
        failed: 2,
        deliveryRate: 0.5,
        clickRate: 0.5,
        conversionRate: 0.25,
      }),
    });
    expect(byCampaign[c2]).toEqual({ campaignId: c2, ...counts({ requested: 1, blocked: 1 }) });
    expect(byCampaign.null).toEqual({
      campaignId: null,
      ...counts({
        requested: 1,
        sent: 1,
        delivered: 1,
        clicked: 1,
        converted: 1,
        deliveryRate: 1,
        clickRate: 1,
        conversionRate: 1,
      }),
    });
    expect(res.body.byVariant).toEqual(
      [
        {
          campaignId: c1,
          variantId: "vA",
          ...counts({
            requested: 3,
            sent: 2,
            delivered: 2,
            clicked: 2,
            converted: 1,
            deliveryRate: 1,
            clickRate: 1,
            conversionRate: 0.5,
          }),
        },
        {
          campaignId: c1,
          variantId: "vB",
          ...counts({ requested: 1, sent: 1, deliveryRate: 0, clickRate: 0, conversionRate: 0 }),
        },
      ].sort((a, b) => (a.campaignId + a.variantId).localeCompare(b.campaignId + b.variantId)),
    );
  });

  it("filters by location, brand, campaign, channel and date range", async () => {
    const loc = await w.as("viewer").get(`/v1/analytics/funnel?${range}&locationId=${l2.id}`);
    expect(loc.body.totals).toMatchObject({ requested: 2, sent: 1, converted: 1, blocked: 1 });
    const brand = await w.as("viewer").get(`/v1/analytics/funnel?${range}&brandId=${l1.brandId}`);
    expect(brand.body.totals.requested).toBe(9);
    const campaign = await w.as("viewer").get(`/v1/analytics/funnel?${range}&campaignId=${c1}&channel=sms`);
    expect(campaign.body.totals).toMatchObject({ requested: 3, sent: 1, failed: 2, blocked: 1 });
    const feb = await w.as("viewer").get(`/v1/analytics/funnel?dateFrom=2026-02-01&dateTo=2026-03-02`);
    expect(feb.body.totals).toMatchObject({ requested: 7, sent: 5, delivered: 3 });
  });

  it("rejects bad ranges and another tenant's location or brand with 400", async () => {
    const bad = await w.as("viewer").get("/v1/analytics/funnel?dateFrom=2026-03-05&dateTo=2026-03-01");
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toBe("dateFrom");
    const foreign = await newLocation(w, "tenantBAdmin");
    const res = await w
      .as("viewer")
      .get(`/v1/analytics/funnel?${range}&locationId=${foreign.id}&brandId=${foreign.brandId}`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues.map((i: any) => i.path)).toEqual(["locationId", "brandId"]);
  });
});

describe("rollup maintenance", () => {
  const rows = () => db().select().from(analyticsFunnelDaily).where(eq(analyticsFunnelDaily.tenantId, w.tenantA.id));

  it("is idempotent: redelivering events, or other events of the same solicitations, changes nothing", async () => {
    const before = await rows();
    const t = w.tenantA.id;
    const again = Object.values(ids).map((id) => envelope(t, "solicitation.clicked", { solicitationId: id }));
    await deliver(again);
    await deliver(again, 2);
    for (const e of again.slice(0, 3)) await applyEventToRollups(e, env, db());
    expect(await rows()).toEqual(before);
  });

  it("follows a status change when its event arrives", async () => {
    await db()
      .update(solicitations)
      .set({
        status: "DELIVERED",
        sentAt: at("2026-03-03", "11"),
        deliveredAt: at("2026-03-03", "11"),
        clickedAt: at("2026-03-04"),
      })
      .where(eq(solicitations.id, ids.s9!));
    await deliver([envelope(w.tenantA.id, "solicitation.delivered", { solicitationId: ids.s9 })]);
    const res = await w.as("viewer").get(`/v1/analytics/funnel?${range}`);
    expect(res.body.totals).toMatchObject({ requested: 9, sent: 6, delivered: 4, clicked: 4, converted: 2 });
  });

  it("rebuild recomputes from source rows (tenant_admin only) and is audited", async () => {
    await db().delete(analyticsFunnelDaily).where(eq(analyticsFunnelDaily.tenantId, w.tenantA.id));
    expect((await w.as("viewer").get(`/v1/analytics/funnel?${range}`)).body.totals.requested).toBe(0);
    expect(
      (await w.as("manager").post("/v1/analytics/rebuild", { dateFrom: "2026-02-01", dateTo: "2026-03-31" })).status,
    ).toBe(403);
    const res = await w
      .as("tenantAdmin")
      .post("/v1/analytics/rebuild", { dateFrom: "2026-02-01", dateTo: "2026-03-31" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.funnelRows).toBe(7); // groups: 3 + 1 on Mar 2-3 at L1, 2 at L2, 1 in February
    const after = await w.as("viewer").get(`/v1/analytics/funnel?${range}`);
    expect(after.body.totals).toMatchObject({
      requested: 9,
      sent: 6,
      delivered: 4,
      clicked: 4,
      converted: 2,
      blocked: 2,
      failed: 2,
    });
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "analytics.rebuilt")));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.nextState).toMatchObject({ funnelRows: 7 });
    const tooLong = await w
      .as("tenantAdmin")
      .post("/v1/analytics/rebuild", { dateFrom: "2024-01-01", dateTo: "2026-03-31" });
    expect(tooLong.status).toBe(400);
  });
});

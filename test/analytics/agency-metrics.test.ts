import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { locations } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { systemContext } from "../../src/lib/system-context";
import { nowIso } from "../../src/lib/time";
import { recomputeAll } from "../../src/modules/analytics/rollups";
import { campaignMetrics } from "../../src/modules/analytics/skills";
import { createWorld, db, seedTenant, type World } from "../helpers/seed";
import { newLocation, seedReview, seedSolicitation } from "./helpers";

let w: World;
let sibling: Awaited<ReturnType<typeof seedTenant>>;
let campaignId: string;
const day = "2026-05-04";
const at = (hh: string) => `${day}T${hh}:00:00.000Z`;

async function seedLocation(tenantId: string, brandId: string) {
  const now = nowIso();
  const id = newId();
  await db().insert(locations).values({ id, tenantId, brandId, name: "Seeded", createdAt: now, updatedAt: now });
  return id;
}

beforeAll(async () => {
  w = await createWorld();
  sibling = await seedTenant({ agencyId: w.agencyA.id, name: "Sibling Co" });
  const la = await newLocation(w);
  const ls = await seedLocation(sibling.id, sibling.brandId);
  const lb = await seedLocation(w.tenantB.id, (await newLocation(w, "tenantBAdmin")).brandId);
  campaignId = (
    await w.as("manager").post("/v1/campaigns", { name: "May", type: "one_time", channels: ["email", "sms"] })
  ).body.id;

  // tenant A: 2 reviews (5, 3), 3 sends of which 1 converted
  await seedReview(w.tenantA.id, {
    locationId: la.id,
    rating: 5,
    sentiment: "positive",
    createdAt: at("09"),
    status: "responded",
  });
  await seedReview(w.tenantA.id, { locationId: la.id, rating: 3, sentiment: "neutral", createdAt: at("10") });
  await seedSolicitation(w.tenantA.id, {
    locationId: la.id,
    createdAt: at("08"),
    campaignId,
    templateId: "T-email",
    channel: "email",
    status: "DELIVERED",
    sentAt: at("08"),
    deliveredAt: at("08"),
    clickedAt: at("09"),
    convertedAt: at("10"),
  });
  await seedSolicitation(w.tenantA.id, {
    locationId: la.id,
    createdAt: at("08"),
    campaignId,
    templateId: "T-email",
    channel: "email",
    status: "SENT",
    sentAt: at("08"),
  });
  await seedSolicitation(w.tenantA.id, {
    locationId: la.id,
    createdAt: at("08"),
    campaignId,
    templateId: "T-sms",
    channel: "sms",
    status: "DELIVERED",
    sentAt: at("08"),
    deliveredAt: at("08"),
  });
  // the sibling tenant (same agency): 1 negative review
  await seedReview(sibling.id, { locationId: ls, rating: 1, sentiment: "negative", createdAt: at("11") });
  // tenant B (another agency): must never show up
  await seedReview(w.tenantB.id, { locationId: lb, rating: 2, sentiment: "negative", createdAt: at("12") });
  for (const tenantId of [w.tenantA.id, sibling.id, w.tenantB.id])
    await recomputeAll(db(), { tenantId, from: day, to: day });
});

const range = `dateFrom=${day}&dateTo=${day}`;

describe("GET /agency/analytics", () => {
  it("rolls up every owned tenant, and not another agency's", async () => {
    const res = await w.as("agencyAdmin").get(`/agency/analytics?${range}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byTenant = Object.fromEntries(res.body.tenants.map((t: any) => [t.tenant.id, t]));
    expect(Object.keys(byTenant).sort()).toEqual([w.tenantA.id, sibling.id].sort());
    expect(byTenant[w.tenantA.id]).toMatchObject({
      reviews: { count: 2, averageRating: 4, negative: 0 },
      funnel: { requested: 3, sent: 3, delivered: 2, clicked: 1, converted: 1, conversionRate: 0.3333 },
      responses: { reviews: 2, responded: 1, responseRate: 0.5 },
    });
    expect(byTenant[sibling.id]).toMatchObject({
      tenant: { name: "Sibling Co" },
      reviews: { count: 1, averageRating: 1, negative: 1 },
      funnel: { requested: 0, conversionRate: null },
    });
    expect(res.body.totals).toMatchObject({
      reviews: { count: 3, averageRating: 3, negative: 1 },
      funnel: { sent: 3, converted: 1 },
      responses: { reviews: 3, responded: 1 },
    });
  });

  it("narrows to one owned tenant; another agency's tenant is 404; tenant users are refused", async () => {
    const one = await w.as("agencyAdmin").get(`/agency/analytics?${range}&tenantId=${sibling.id}`);
    expect(one.body.tenants.map((t: any) => t.tenant.id)).toEqual([sibling.id]);
    expect((await w.as("agencyAdmin").get(`/agency/analytics?${range}&tenantId=${w.tenantB.id}`)).status).toBe(404);
    const other = await w.as("otherAgencyAdmin").get(`/agency/analytics?${range}`);
    expect(other.body.tenants.map((t: any) => t.tenant.id)).toEqual([w.tenantB.id]);
    expect((await w.as("manager").get(`/agency/analytics?${range}`)).status).toBe(403);
    const platform = await w.as("platformAdmin").get(`/agency/analytics?${range}`);
    expect(platform.body.tenants.length).toBe(3);
  });
});

describe("campaign.metrics (MCP)", () => {
  it("gives the campaign's funnel by channel and per template", async () => {
    const ctx = await systemContext(env, w.tenantA.id, "test");
    const m = await campaignMetrics(ctx, { campaignId, since: "2026-05-01" });
    expect(m.totals).toMatchObject({
      requested: 3,
      sent: 3,
      delivered: 2,
      opened: null,
      clicked: 1,
      converted: 1,
      responded: 1,
    });
    expect(m.byChannel.map((c) => [c.channel, c.sent, c.clicked, c.responded])).toEqual([
      ["email", 2, 1, 1],
      ["sms", 1, 0, 0],
    ]);
    expect(m.byTemplate.map((t) => [t.templateId, t.sent, t.conversionRate])).toEqual([
      ["T-email", 2, 0.5],
      ["T-sms", 1, 0],
    ]);
    expect((await campaignMetrics(ctx, { campaignId, since: "2026-06-01" })).totals.sent).toBe(0);
    await expect(campaignMetrics(await systemContext(env, w.tenantB.id, "test"), { campaignId })).rejects.toMatchObject(
      { code: "NOT_FOUND" },
    );
  });
});

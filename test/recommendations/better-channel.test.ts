import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { analyticsFunnelDaily, recommendations } from "../../src/db/schema";
import { chunkRows } from "../../src/lib/sql";
import { systemContext } from "../../src/lib/system-context";
import { addDaysTo, dayOf } from "../../src/modules/analytics/dates";
import { generateRecommendations } from "../../src/modules/recommendations/rules";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
const CAMPAIGNS = 95; // more than the 90 ids the rule once read, then silently dropped
const campaignIds: string[] = [];

beforeAll(async () => {
  w = await createWorld();
  for (let i = 0; i < CAMPAIGNS; i++) {
    const res = await w
      .as("manager")
      .post("/v1/campaigns", { name: `Two channels ${i}`, type: "continuous", channels: ["email", "sms"] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    campaignIds.push(res.body.id);
  }
  const day = addDaysTo(dayOf(new Date()), -2);
  const row = (campaignId: string, channel: string, converted: number) => ({
    tenantId: w.tenantA.id,
    day,
    locationId: "",
    campaignId,
    channel,
    templateId: "",
    variantId: "",
    requested: 100,
    sent: 100,
    delivered: 100,
    clicked: 0,
    converted,
    blocked: 0,
    blockedByCap: 0,
    failed: 0,
  });
  // in every campaign email converts 30% against sms 10%: a clear winner
  const rows = campaignIds.flatMap((id) => [row(id, "email", 30), row(id, "sms", 10)]);
  for (const part of chunkRows(analyticsFunnelDaily, rows)) await db().insert(analyticsFunnelDaily).values(part);
});

describe("better_channel over any number of campaigns", () => {
  it("raises one recommendation for each of 95 campaigns, none cut off", async () => {
    await generateRecommendations(await systemContext(env, w.tenantA.id, "test"));
    const raised = await db()
      .select({ scopeId: recommendations.scopeId })
      .from(recommendations)
      .where(and(eq(recommendations.tenantId, w.tenantA.id), eq(recommendations.type, "better_channel")));
    expect(raised.map((r) => r.scopeId).sort()).toEqual([...campaignIds].sort());
  });
});

import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { controlDb, shardDb } from "../../src/db/shards";
import { SYSTEM_META } from "../../src/lib/context";
import { ApiError } from "../../src/lib/errors";
import { callTool, USER_AGENT_SCOPES } from "../../src/modules/agents/tools";
import { createWorld, db, type World } from "../helpers/seed";
import { callConfirmed, connect, structured } from "../mcp/helpers";

let w: World;

async function apiKey(scopes: string[]) {
  const res = await w.as("tenantAdmin").post("/v1/api-keys", { name: `agents ${scopes.join(" ")}`, scopes });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

const ctxA = () => ({
  db: shardDb(env, 0),
  control: controlDb(env),
  env,
  tenantId: w.tenantA.id,
  actor: { type: "user" as const, userId: w.users.viewer.id, via: "tenant" as const },
  meta: SYSTEM_META,
  defer: () => {},
  canWrite: false,
  scopes: USER_AGENT_SCOPES,
});

const B: Record<string, string> = {};

beforeAll(async () => {
  w = await createWorld();
  const b = w.as("tenantBAdmin");
  B.locationId = (await b.post("/v1/locations", { name: "B shop" })).body.id;
  B.campaignId = (await b.post("/v1/campaigns", { name: "B", type: "one_time", channels: ["email"] })).body.id;
  B.templateId = (await b.post("/v1/templates", { name: "B", channel: "sms", bodyText: "hi" })).body.id;
  B.experimentId = (
    await b.post("/v1/experiments", {
      name: "B",
      hypothesis: "h",
      variants: [
        { name: "A", trafficPercent: 50 },
        { name: "B", trafficPercent: 50 },
      ],
    })
  ).body.id;
  B.reviewId = (
    await b.post("/v1/reviews/ingest", {
      locationId: B.locationId,
      siteType: "google",
      rating: 1,
      text: "B only",
      externalReviewId: "b-1",
    })
  ).body.id;
  B.surveyId = (await b.post("/v1/surveys", { name: "B NPS", type: "NPS" })).body.id;
  B.brandId = w.tenantB.brandId;
});

describe("agent.* over MCP", () => {
  it("needs the agent:* scope: hidden and refused without it", async () => {
    const readOnly = await connect({ token: await apiKey(["read:reviews"]) });
    expect((await readOnly.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("agent."))).toEqual(
      [],
    );
    const refused = await readOnly.client.callTool({
      name: "agent.experiment-designer",
      arguments: { baselineRate: 0.1, minimumDetectableEffect: 0.02 },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("agent:*");
  });

  it("with agent:* lists the eight agents and runs them; audited as a tool call and as an agent run", async () => {
    // the tools read with the key's own scopes (test/agents/tool-scopes.test.ts covers agent:* alone)
    const { client } = await connect({ token: await apiKey(["agent:*", "read:campaigns", "read:competitors"]) });
    const names = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("agent."));
    expect(names).toEqual([
      "agent.campaign-strategist",
      "agent.compliance-critic",
      "agent.experiment-designer",
      "agent.operator-copilot",
      "agent.optimization",
      "agent.outcome-analyst",
      "agent.reputation-insight",
      "agent.template-generator",
    ]);
    const out = structured(
      await client.callTool({
        name: "agent.experiment-designer",
        arguments: { baselineRate: 0.1, minimumDetectableEffect: 0.02 },
      }),
    );
    expect(out).toMatchObject({
      agent: "agent.experiment-designer",
      engine: "rules",
      output: { sampleSizePerVariant: 3841 },
    });
    const copilot = structured(
      await client.callTool({ name: "agent.operator-copilot", arguments: { question: "any competitors?" } }),
    );
    expect(copilot.output.citations[0].tool).toBe("competitor.list");
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.resourceId, "agent.experiment-designer")));
    expect(rows.filter((r) => r.action === "agent.run")).toHaveLength(1);
    expect(
      rows
        .filter((r) => r.action === "mcp.tool_called")
        .map((r) => (r.metadata as { outcome: string }).outcome)
        .sort(),
    ).toEqual(["forbidden", "success"]);
  });

  it("an API key cannot save template drafts through the template generator", async () => {
    const { client } = await connect({ token: await apiKey(["agent:*"]) });
    const res = await callConfirmed(client, "agent.template-generator", { channels: ["sms"], create: true });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toContain("FORBIDDEN");
  });
});

describe("tenant isolation of every agent tool", () => {
  const byId: [string, (b: Record<string, string>) => Record<string, unknown>][] = [
    ["campaign.get", (b) => ({ campaignId: b.campaignId })],
    ["campaign.metrics", (b) => ({ campaignId: b.campaignId })],
    ["template.get", (b) => ({ templateId: b.templateId })],
    ["experiment.get", (b) => ({ experimentId: b.experimentId })],
    ["experiment.results", (b) => ({ experimentId: b.experimentId })],
    ["location.get", (b) => ({ locationId: b.locationId })],
    ["score.location", (b) => ({ locationId: b.locationId })],
    ["brand.get", (b) => ({ brandId: b.brandId })],
    ["review.get", (b) => ({ reviewId: b.reviewId })],
    ["survey.stats", (b) => ({ surveyId: b.surveyId })],
    ["inbox.get", (b) => ({ itemId: b.reviewId, itemType: "review" })],
  ];
  it.each(byId)("%s with another tenant's id is NOT_FOUND", async (tool, input) => {
    const err = await callTool(ctxA(), tool, input(B)).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("NOT_FOUND");
  });

  it("filters naming another tenant's rows are refused, lists never return them", async () => {
    for (const tool of ["analytics.funnel", "analytics.reviews", "analytics.responses"]) {
      const err = await callTool(ctxA(), tool, { locationId: B.locationId }).catch((e) => e);
      expect((err as ApiError).code).toBe("VALIDATION_ERROR");
    }
    const ids = (r: unknown) => JSON.stringify(r);
    for (const [tool, input] of [
      ["reviews.search", { locationId: B.locationId }],
      ["review.list", {}],
      ["campaign.list", {}],
      ["experiment.list", {}],
      ["location.list", {}],
      ["analytics.send-timing", { locationId: B.locationId }],
      ["inbox.list", {}],
      ["survey.list", {}],
      ["recommendation.list", {}],
    ] as const) {
      const out = ids(await callTool(ctxA(), tool, input as Record<string, unknown>));
      for (const id of Object.values(B)) expect(out, `${tool} leaked ${id}`).not.toContain(id);
    }
  });
});

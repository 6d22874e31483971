import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { COMPENSATION, RATING_CHANGE, replyText } from "../../src/modules/agents/agents/reply-drafter";
import { createWorld, db, type World } from "../helpers/seed";
import { requestWithEnv, standInAi } from "./helpers";

let w: World;
let locationId = "";

const ingest = async (body: Record<string, unknown>) =>
  (await w.as("manager").post("/v1/reviews/ingest", { locationId, siteType: "google", ...body })).body;

beforeAll(async () => {
  w = await createWorld();
  await w
    .as("tenantAdmin")
    .patch(`/v1/brands/${w.tenantA.brandId}`, { brandVoice: "friendly", brandTone: "empathetic" });
  locationId = (await w.as("manager").post("/v1/locations", { name: "Centro", phone: "+34911234567" })).body.id;
});

describe("AI-drafted responses through the agent runtime", () => {
  it("useAi replies in the review's language, addresses its topics, and is marked aiGenerated and audited", async () => {
    const review = await ingest({
      rating: 2,
      text: "La espera fue muy larga y el personal no ayudó",
      language: "es",
      topics: ["wait_time", "staff"],
      authorName: "Lucía Gómez",
      externalReviewId: "es-1",
    });
    const res = await w.as("tenantUser").post(`/v1/reviews/${review.id}/responses`, { useAi: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ aiGenerated: true, status: "draft" });
    expect(res.body.text).toMatch(/^Hola Lucía:/);
    expect(res.body.text).toContain("el tiempo de espera y nuestro equipo");
    expect(res.body.text).toContain("+34911234567");
    expect(COMPENSATION.test(res.body.text) || RATING_CHANGE.test(res.body.text)).toBe(false);
    const runs = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.resourceId, "agent.reply-drafter")));
    expect(runs[0]!.metadata).toMatchObject({
      engine: "rules",
      outcome: "success",
      toolCalls: [{ tool: "review.get", ok: true }],
    });
  });

  it("the guard refuses compensation and asks to change the rating", () => {
    expect(replyText.safeParse("Sorry! Here is a 20% discount on your next visit.").success).toBe(false);
    expect(replyText.safeParse("We'd love it if you could update your rating once we fix this.").success).toBe(false);
    expect(replyText.safeParse("We are sorry; please call us so we can make this right.").success).toBe(true);
  });

  it("with the llm engine a reply offering a refund is retried; a second bad one falls back to the built-in draft", async () => {
    const review = await ingest({
      rating: 1,
      text: "Cold food",
      language: "en",
      topics: ["quality"],
      authorName: "Sam",
      externalReviewId: "en-1",
    });
    const refund = {
      response: {
        text: "Sorry Sam, we will refund your meal.",
        language: "en",
        topicsAddressed: ["quality"],
        evidence: [],
      },
    };
    const good = {
      response: {
        text: "Sam, we are sorry the food was cold. Please call us.",
        language: "en",
        topicsAddressed: ["quality"],
        evidence: [{ source: "review.get", id: review.id, label: "rating", value: 1 }],
      },
    };
    const ai = standInAi([
      { tool_calls: [{ name: "review.get", arguments: { reviewId: review.id } }] },
      { response: "" },
      refund,
      good,
    ]);
    const res = await requestWithEnv({ AI: ai }, "POST", `/v1/reviews/${review.id}/responses`, {
      token: w.users.tenantUser.token,
      tenantId: w.tenantA.id,
      body: { useAi: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ text: good.response.text, aiGenerated: true });
    expect(JSON.stringify(ai.calls[3]!.input.messages)).toContain("must not offer compensation");

    const stubborn = standInAi([{ response: "" }, refund, refund]);
    const fallback = await requestWithEnv({ AI: stubborn }, "POST", `/v1/reviews/${review.id}/responses`, {
      token: w.users.tenantUser.token,
      tenantId: w.tenantA.id,
      body: { useAi: true },
    });
    expect(fallback.status).toBe(201);
    expect(fallback.body.text).toMatch(/^Hi Sam,/);
    expect(fallback.body.text).not.toMatch(/refund/i);
  });
});

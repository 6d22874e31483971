import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { callConfirmed, connect, structured } from "./helpers";

let w: World;
let contactIds: { ann: string; bob: string; cy: string };
let campaignId = "";
let bCampaignId = "";

/** A real API key minted through POST /v1/api-keys, as a customer would. */
async function apiKey(as: "tenantAdmin" | "tenantBAdmin", scopes: string[]) {
  const res = await w.as(as).post("/v1/api-keys", { name: `mcp ${scopes.join(" ")}`, scopes });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

beforeAll(async () => {
  w = await createWorld();
  const mk = async (body: Record<string, unknown>) =>
    (await w.as("manager").post("/v1/contacts", body)).body.id as string;
  contactIds = {
    ann: await mk({ email: "ann@example.com", firstName: "Ann", lastName: "Avery" }),
    bob: await mk({ phone: "+12025550143", firstName: "Bob", lastName: "Baker" }),
    cy: await mk({ email: "cy@example.com", phone: "+12025550199", firstName: "Cy" }),
  };
  await w.as("manager").post(`/v1/contacts/${contactIds.ann}/consent`, { channel: "email", source: "checkout form" });
  await w.as("manager").post(`/v1/contacts/${contactIds.cy}/suppress`, { reason: "asked" });
  await w.as("tenantBAdmin").post("/v1/contacts", { email: "b-only@example.com" });

  const tpl = await w.as("manager").post("/v1/templates", {
    name: "Ask",
    channel: "email",
    subject: "How did we do, {{firstName}}?",
    bodyHtml: "<p>{{reviewLink}} {{unsubscribeLink}}</p>",
    bodyText: "{{reviewLink}} {{unsubscribeLink}}",
  });
  await w.as("manager").post(`/v1/templates/${tpl.body.id}/approve`);
  const campaign = await w
    .as("manager")
    .post("/v1/campaigns", { name: "After visit", type: "drip", channels: ["email"] });
  campaignId = campaign.body.id;
  await w.as("manager").post(`/v1/campaigns/${campaignId}/templates`, { templateId: tpl.body.id, channel: "email" });
  await w.as("manager").put(`/v1/campaigns/${campaignId}/sequence`, {
    steps: [
      { stepIndex: 0, channel: "email", delayDays: 0 },
      { stepIndex: 1, channel: "email", delayDays: 3 },
    ],
  });
  bCampaignId = (
    await w.as("tenantBAdmin").post("/v1/campaigns", { name: "B campaign", type: "one_time", channels: ["sms"] })
  ).body.id;

  const loc = await w.as("manager").post("/v1/locations", { name: "Main St" });
  for (const [rating, text] of [
    [5, "Great staff"],
    [2, "Long wait"],
    [5, "Lovely"],
  ] as const) {
    await w.as("manager").post("/v1/reviews/ingest", {
      locationId: loc.body.id,
      siteType: "google",
      rating,
      text,
      externalReviewId: `g-${text}`,
    });
  }
});

describe("contact skills", () => {
  it("contact.list returns contacts with their consent state and honours the filters", async () => {
    const { client } = await connect({ token: await apiKey("tenantAdmin", ["read:contacts"]) });
    const all = structured(await client.callTool({ name: "contact.list", arguments: {} }));
    expect(all.total).toBe(3);
    const ann = all.data.find((c: { id: string }) => c.id === contactIds.ann);
    expect(ann).toMatchObject({
      email: "ann@example.com",
      isSuppressed: false,
      consent: { email: { status: "granted" } },
    });
    const phones = structured(
      await client.callTool({ name: "contact.list", arguments: { hasPhone: true, isSuppressed: false } }),
    );
    expect(phones.data.map((c: { id: string }) => c.id)).toEqual([contactIds.bob]);
    expect(phones.total).toBe(1);
    const search = structured(await client.callTool({ name: "contact.list", arguments: { search: "ann" } }));
    expect(search.data.map((c: { id: string }) => c.id)).toEqual([contactIds.ann]);
  });

  it("contact.suppress needs write:contacts and is audited; a read-only key does not even see it", async () => {
    const readOnly = await connect({ token: await apiKey("tenantAdmin", ["read:contacts"]) });
    expect((await readOnly.client.listTools()).tools.map((t) => t.name)).not.toContain("contact.suppress");
    const refused = await readOnly.client.callTool({
      name: "contact.suppress",
      arguments: { contactId: contactIds.bob, reason: "x" },
    });
    expect(refused.isError).toBe(true);

    const writer = await connect({ token: await apiKey("tenantAdmin", ["read:contacts", "write:contacts"]) });
    const done = structured(
      await callConfirmed(writer.client, "contact.suppress", {
        contactId: contactIds.bob,
        reason: "asked on the phone",
      }),
    );
    expect(done).toMatchObject({ id: contactIds.bob, isSuppressed: true, suppressionReason: "asked on the phone" });
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, contactIds.bob), eq(auditEvents.action, "contact.suppressed")));
    expect(audit).toHaveLength(1);
  });

  it("never reaches another tenant's contact", async () => {
    const other = await connect({ token: await apiKey("tenantBAdmin", ["read:contacts", "write:contacts"]) });
    const list = structured(await other.client.callTool({ name: "contact.list", arguments: {} }));
    expect(list.data.map((c: { email: string }) => c.email)).toEqual(["b-only@example.com"]);
    const res = await callConfirmed(other.client, "contact.suppress", { contactId: contactIds.ann, reason: "x" });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toContain("not found");
  });
});

describe("campaign skills", () => {
  it("campaign.list and campaign.get with bound templates and the sequence; tenantId input ignored for keys", async () => {
    const { client } = await connect({ token: await apiKey("tenantAdmin", ["read:campaigns"]) });
    const list = structured(await client.callTool({ name: "campaign.list", arguments: { tenantId: w.tenantB.id } }));
    expect(list.data.map((c: { id: string }) => c.id)).toEqual([campaignId]);
    const got = structured(await client.callTool({ name: "campaign.get", arguments: { campaignId } }));
    expect(got).toMatchObject({ id: campaignId, name: "After visit", type: "drip" });
    expect(got.templates).toHaveLength(1);
    expect(got.templates[0]).toMatchObject({ channel: "email", template: { name: "Ask" } });
    expect(got.sequence.steps.map((s: { delayDays: number }) => s.delayDays)).toEqual([0, 3]);
    const foreign = await client.callTool({ name: "campaign.get", arguments: { campaignId: bCampaignId } });
    expect(foreign.isError).toBe(true);
  });
});

describe("review skills", () => {
  it("review.list filters by exact rating and site", async () => {
    const { client } = await connect({ token: await apiKey("tenantAdmin", ["read:reviews"]) });
    const fives = structured(
      await client.callTool({ name: "review.list", arguments: { rating: 5, siteType: "google" } }),
    );
    expect(fives.total).toBe(2);
    expect(fives.data.map((r: { text: string }) => r.text).sort()).toEqual(["Great staff", "Lovely"]);
    const yelp = structured(await client.callTool({ name: "review.list", arguments: { siteType: "yelp" } }));
    expect(yelp.total).toBe(0);
  });

  it("approval.list-pending lists submitted replies", async () => {
    const reviews = await w.as("viewer").get("/v1/reviews?ratingMax=2");
    const reviewId = reviews.body.data[0].id;
    const draft = await w.as("tenantUser").post(`/v1/reviews/${reviewId}/responses`, { text: "Sorry about the wait." });
    await w.as("tenantUser").post(`/v1/responses/${draft.body.id}/submit`);
    const { client } = await connect({ token: await apiKey("tenantAdmin", ["read:approvals"]) });
    const pending = structured(await client.callTool({ name: "approval.list-pending", arguments: {} }));
    expect(pending.data.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([
      [draft.body.id, "submitted"],
    ]);
    // review content belongs to read:reviews: without it, the replies alone, and the answer says so
    expect(pending.data[0].review).toBeNull();
    expect(pending.reviews).toBe("withheld");
    expect(JSON.stringify(pending)).not.toContain("Long wait");

    const both = await connect({ token: await apiKey("tenantAdmin", ["read:approvals", "read:reviews"]) });
    const withReviews = await both.client.callTool({ name: "approval.list-pending", arguments: {} });
    const shown = structured(withReviews);
    expect(shown.reviews).toBe("shown");
    expect(shown.data).toHaveLength(1);
    expect(shown.data[0]).toMatchObject({ id: draft.body.id, reviewId, text: "Sorry about the wait." });
    expect(shown.data[0].review).toEqual({
      id: reviewId,
      locationId: reviews.body.data[0].locationId,
      locationName: "Main St",
      siteType: "google",
      rating: 2,
      ratingMax: null,
      text: "Long wait",
      authorName: null,
      externalUrl: null,
      publishedAt: null,
      status: "new",
    });
    // the reviewer's words are marked untrusted in the result, as in every tool output
    expect((withReviews.content as any[])[0]._meta["io.reputation-ops/untrusted"].paths).toEqual([
      "data[].text",
      "data[].review.text",
      "data[].review.authorName",
    ]);
  });
});

describe("inbox, survey and insight skills", () => {
  it("inbox.list shows review items only to read:reviews and inbox.get returns the review's responses", async () => {
    const reviewsKey = await connect({ token: await apiKey("tenantAdmin", ["read:reviews"]) });
    const items = structured(await reviewsKey.client.callTool({ name: "inbox.list", arguments: {} }));
    expect(items.data).toHaveLength(3);
    expect(items.data.every((i: { type: string }) => i.type === "review")).toBe(true);
    const low = items.data.find((i: { rating: number }) => i.rating === 2);
    const item = structured(
      await reviewsKey.client.callTool({ name: "inbox.get", arguments: { itemId: low.id, itemType: "review" } }),
    );
    expect(item.review.text).toBe("Long wait");
    expect(item.responses.map((r: { text: string }) => r.text)).toEqual(["Sorry about the wait."]);

    const feedbackKey = await connect({ token: await apiKey("tenantAdmin", ["read:feedback"]) });
    const none = structured(await feedbackKey.client.callTool({ name: "inbox.list", arguments: {} }));
    expect(none.data).toEqual([]);
    const hidden = await feedbackKey.client.callTool({
      name: "inbox.get",
      arguments: { itemId: low.id, itemType: "review" },
    });
    expect(hidden.isError).toBe(true);
  });

  it("review.summary and score.location compute from the seeded reviews", async () => {
    // rollups follow events through the queue; rebuild makes them current for the assertion
    const today = new Date().toISOString().slice(0, 10);
    expect((await w.as("tenantAdmin").post("/v1/analytics/rebuild", { dateFrom: today, dateTo: today })).status).toBe(
      200,
    );
    const { client } = await connect({
      token: await apiKey("tenantAdmin", ["read:reviews", "read:score", "read:locations"]),
    });
    const summary = structured(await client.callTool({ name: "review.summary", arguments: {} }));
    expect(summary).toMatchObject({ count: 3 });
    expect(summary.averageRating).toBeCloseTo(4, 5);
    const loc = structured(await client.callTool({ name: "location.list", arguments: {} })).data.find(
      (l: { name: string }) => l.name === "Main St",
    );
    const score = structured(await client.callTool({ name: "score.location", arguments: { locationId: loc.id } }));
    expect(score.score).toBeGreaterThan(0);
    expect(score.score).toBeLessThanOrEqual(100);
    expect(Object.keys(score.components).sort()).toEqual([
      "platformDiversity",
      "rating",
      "responseHealth",
      "sentiment",
      "velocity",
    ]);
  });

  it("campaign.metrics, survey.list, competitor.list and recommendation.list answer for the key's tenant", async () => {
    const survey = await w.as("manager").post("/v1/surveys", { name: "After visit NPS", type: "NPS" });
    expect(survey.status).toBe(201);
    const { client } = await connect({
      token: await apiKey("tenantAdmin", [
        "read:campaigns",
        "read:surveys",
        "read:competitors",
        "read:recommendations",
      ]),
    });
    const metrics = structured(await client.callTool({ name: "campaign.metrics", arguments: { campaignId } }));
    expect(metrics.campaignId ?? metrics.campaign?.id).toBe(campaignId);
    const surveys = structured(await client.callTool({ name: "survey.list", arguments: {} }));
    expect(surveys.data.map((s: { name: string }) => s.name)).toEqual(["After visit NPS"]);
    expect(structured(await client.callTool({ name: "competitor.list", arguments: {} })).data).toEqual([]);
    expect(structured(await client.callTool({ name: "recommendation.list", arguments: {} })).data).toEqual([]);
  });
});

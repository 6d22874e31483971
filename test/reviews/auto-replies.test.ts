import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, autoReplies, reviewResponses, tenants } from "../../src/db/schema";
import { autoReplyToReview } from "../../src/modules/reviews/auto-replies/fire";
import { publishDueAutoReplies } from "../../src/modules/reviews/auto-replies/publish-due";
import { createWorld, db, type World } from "../helpers/seed";
import { eventually } from "../inbox/helpers";
import { connect, structured } from "../mcp/helpers";
import { ingest, jsonResponse, newLocation, standIn } from "./helpers";

let w: World;

beforeAll(async () => {
  w = await createWorld();
});

const MIN = 60_000;
const rowFor = (reviewId: string) => db().select().from(autoReplies).where(eq(autoReplies.reviewId, reviewId)).get();
/** The auto reply once the event handler has finished with it (drafting is its in-flight state). */
const settled = (reviewId: string) =>
  eventually(
    () => rowFor(reviewId),
    (r) => Boolean(r && r.status !== "drafting"),
  );
const responseOf = async (id: string) =>
  (await db().select().from(reviewResponses).where(eq(reviewResponses.id, id)).get())!;
const auditsOf = (resourceId: string) => db().select().from(auditEvents).where(eq(auditEvents.resourceId, resourceId));

async function rule(locationId: string, body: Record<string, unknown>) {
  const res = await w.as("manager").post("/v1/auto-reply-rules", { name: "rule", locationId, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function optIn(enabled = true) {
  const res = await w.as("tenantAdmin").put("/v1/settings/auto-replies", { autoPublishEnabled: enabled });
  expect(res.body).toMatchObject({ autoPublishEnabled: enabled });
}

describe("rules: REST resource", () => {
  it("creates, reads, updates and deletes a rule; validation and roles", async () => {
    const loc = await newLocation(w);
    const created = await rule(loc.id, {
      ratings: [5, 4, 5],
      textCondition: "empty",
      source: "template",
      template: "Thanks {{review.authorName}}!",
    });
    expect(created).toMatchObject({
      locationId: loc.id,
      ratings: [4, 5],
      textCondition: "empty",
      mode: "approval",
      delayMinutes: null,
      allowLowRatings: false,
      isActive: true,
    });
    expect((await w.as("viewer").get(`/v1/auto-reply-rules/${created.id}`)).body.id).toBe(created.id);
    const listed = await w.as("viewer").get(`/v1/auto-reply-rules?locationId=${loc.id}`);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([created.id]);

    const patched = await w
      .as("manager")
      .patch(`/v1/auto-reply-rules/${created.id}`, { keywords: ["Great", "great"], isActive: false });
    expect(patched.body).toMatchObject({ keywords: ["great"], isActive: false });

    expect(
      (await w.as("tenantUser").post("/v1/auto-reply-rules", { name: "x", ratings: [5], source: "engine" })).status,
    ).toBe(403);
    expect((await w.as("manager").delete(`/v1/auto-reply-rules/${created.id}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/auto-reply-rules/${created.id}`)).status).toBe(404);
  });

  it("ratings of 3 or less need allowLowRatings; templates and delays are checked", async () => {
    const issues = async (body: Record<string, unknown>) => {
      const res = await w.as("manager").post("/v1/auto-reply-rules", { name: "r", source: "engine", ...body });
      expect(res.status).toBe(400);
      return res.body.details.issues.map((i: { path: string }) => i.path);
    };
    expect(await issues({ ratings: [3, 4, 5] })).toEqual(["ratings"]);
    expect(await issues({ ratings: [5], source: "template" })).toEqual(["template"]);
    expect(await issues({ ratings: [5], mode: "approval", delayMinutes: 10 })).toEqual(["delayMinutes"]);
    expect(await issues({ ratings: [5], mode: "auto_publish", delayMinutes: 4 })).toEqual(["delayMinutes"]);
    expect(await issues({ ratings: [5], mode: "auto_publish", delayMinutes: 24 * 60 + 1 })).toEqual(["delayMinutes"]);
    const low = await w.as("manager").post("/v1/auto-reply-rules", {
      name: "r",
      source: "engine",
      ratings: [1, 2, 3],
      allowLowRatings: true,
      isActive: false,
    });
    expect(low.status).toBe(201);
    // taking the consent back on a rule that covers low ratings is refused too
    expect(
      (await w.as("manager").patch(`/v1/auto-reply-rules/${low.body.id}`, { allowLowRatings: false })).status,
    ).toBe(400);
  });

  it("auto_publish needs the tenant's opt-in, which only a tenant_admin gives", async () => {
    await optIn(false);
    const body = { name: "r", ratings: [5], source: "engine", mode: "auto_publish", delayMinutes: 30, isActive: false };
    const refused = await w.as("manager").post("/v1/auto-reply-rules", { ...body, isActive: true });
    expect(refused.status).toBe(400);
    expect(refused.body.details.issues[0].path).toBe("mode");
    expect((await w.as("manager").put("/v1/settings/auto-replies", { autoPublishEnabled: true })).status).toBe(403);
    await optIn(true);
    expect((await w.as("viewer").get("/v1/settings/auto-replies")).body.autoPublishEnabled).toBe(true);
    expect((await w.as("manager").post("/v1/auto-reply-rules", body)).status).toBe(201);
  });

  it("another tenant's rule is 404 and its location is 400", async () => {
    const locB = await newLocation(w, "tenantBAdmin");
    const ruleB = await w.as("tenantBAdmin").post("/v1/auto-reply-rules", {
      name: "b",
      ratings: [5],
      source: "engine",
      locationId: locB.id,
      isActive: false,
    });
    expect(ruleB.status).toBe(201);
    expect((await w.as("tenantAdmin").get(`/v1/auto-reply-rules/${ruleB.body.id}`)).status).toBe(404);
    expect((await w.as("tenantAdmin").patch(`/v1/auto-reply-rules/${ruleB.body.id}`, { name: "x" })).status).toBe(404);
    expect((await w.as("tenantAdmin").delete(`/v1/auto-reply-rules/${ruleB.body.id}`)).status).toBe(404);
    const cross = await w
      .as("manager")
      .post("/v1/auto-reply-rules", { name: "x", ratings: [5], source: "engine", locationId: locB.id });
    expect(cross.status).toBe(400);
    expect(cross.body.details.issues[0].path).toBe("locationId");
  });
});

describe("drafting on a new review", () => {
  it("a 5-star review without text gets the template's reply, submitted for approval, done as system/auto-reply", async () => {
    const loc = await newLocation(w, "manager", { name: "Harbor Dental" });
    const r = await rule(loc.id, {
      ratings: [5],
      textCondition: "empty",
      source: "template",
      template: "Thank you {{review.authorName}}, see you at {{location.name}}!",
    });
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5, authorName: "Ana" });
    const auto = await settled(review.id);
    expect(auto).toMatchObject({ ruleId: r.id, mode: "approval", status: "queued", publishAt: null });
    const response = await responseOf(auto!.responseId!);
    expect(response).toMatchObject({
      text: "Thank you Ana, see you at Harbor Dental!",
      status: "submitted",
      aiGenerated: false,
      createdByUserId: null,
    });
    const queue = await w.as("viewer").get("/v1/responses/approval-queue");
    expect(queue.body.map((x: { id: string }) => x.id)).toContain(response.id);
    const audits = await auditsOf(response.id);
    expect(audits.map((a) => a.action).sort()).toEqual(["response.created", "response.submitted"]);
    for (const a of audits)
      expect(a).toMatchObject({ actorType: "system", actorId: null, metadata: { job: "auto-reply" } });
    const listed = await w.as("viewer").get(`/v1/auto-replies?reviewId=${review.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: auto!.id, status: "queued", responseId: response.id }),
    ]);
  });

  it("the drafting engine writes the text when the rule says engine", async () => {
    const loc = await newLocation(w);
    await rule(loc.id, { ratings: [4, 5], textCondition: "present", keywords: ["friendly"], source: "engine" });
    const review = await ingest(w, {
      locationId: loc.id,
      siteType: "first_party",
      rating: 5,
      text: "Friendly staff and quick service",
      authorName: "Ben Ortiz",
    });
    const auto = await settled(review.id);
    const response = await responseOf(auto!.responseId!);
    expect(response.aiGenerated).toBe(true);
    expect(response.text).toContain("Ben");
  });

  it("text, keyword and rating conditions: no rule matches, nothing is drafted", async () => {
    const loc = await newLocation(w);
    await rule(loc.id, { ratings: [5], textCondition: "empty", source: "template", template: "Thanks!" });
    await rule(loc.id, {
      ratings: [4],
      textCondition: "present",
      keywords: ["clean"],
      source: "template",
      template: "Thanks!",
    });
    const withText = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5, text: "Great" });
    const noKeyword = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 4, text: "Nice people" });
    const low = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 2 });
    // a review that does match, ingested last: once it is answered the others had their turn
    const control = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 4, text: "Very clean" });
    expect((await settled(control.id))!.status).toBe("queued");
    for (const r of [withText, noKeyword, low]) expect(await rowFor(r.id)).toBeUndefined();
  });

  it("a low rating is answered only by a rule that says so explicitly", async () => {
    const loc = await newLocation(w);
    await rule(loc.id, {
      ratings: [1, 2, 3, 4, 5],
      allowLowRatings: true,
      source: "template",
      template: "We are sorry to hear that.",
    });
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 2, text: "Slow" });
    expect((await settled(review.id))!.status).toBe("queued");
  });

  it("the most specific rule wins (location + site over location)", async () => {
    const loc = await newLocation(w);
    await rule(loc.id, { ratings: [5], source: "template", template: "general" });
    const specific = await rule(loc.id, {
      siteType: "first_party",
      ratings: [5],
      source: "template",
      template: "specific",
    });
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5 });
    const auto = await settled(review.id);
    expect(auto!.ruleId).toBe(specific.id);
    expect((await responseOf(auto!.responseId!)).text).toBe("specific");
  });

  it("a redelivered event (even twice at once) drafts nothing more", async () => {
    const loc = await newLocation(w);
    await rule(loc.id, { ratings: [5], source: "template", template: "Thanks!" });
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5 });
    await settled(review.id);
    const event = {
      id: "evt_redelivered",
      type: "review.created",
      tenantId: w.tenantA.id,
      occurredAt: new Date().toISOString(),
      data: { reviewId: review.id, locationId: loc.id },
    } as const;
    const again = await Promise.all([autoReplyToReview(env, event as never), autoReplyToReview(env, event as never)]);
    expect(again).toEqual([null, null]);
    const responses = await db().select().from(reviewResponses).where(eq(reviewResponses.reviewId, review.id));
    expect(responses).toHaveLength(1);
  });

  it("a review someone already answered, or one that is older than a week (a first sync's backlog), is left alone", async () => {
    const loc = await newLocation(w);
    const answered = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5 });
    expect(
      (await w.as("tenantUser").post(`/v1/reviews/${answered.id}/responses`, { text: "Thanks, from a person" })).status,
    ).toBe(201);
    const old = await ingest(w, {
      locationId: loc.id,
      siteType: "google",
      externalReviewId: `old-${Math.random()}`,
      rating: 5,
      publishedAt: new Date(Date.now() - 8 * 86_400_000).toISOString(),
    });
    await rule(loc.id, { ratings: [5], source: "template", template: "Thanks!" });
    const eventFor = (reviewId: string) =>
      ({
        id: `evt_${reviewId}`,
        type: "review.created",
        tenantId: w.tenantA.id,
        occurredAt: new Date().toISOString(),
        data: { reviewId },
      }) as never;
    expect(await autoReplyToReview(env, eventFor(answered.id))).toBeNull();
    expect(await autoReplyToReview(env, eventFor(old.id))).toBeNull();
    expect(await rowFor(answered.id)).toBeUndefined();
    expect(await rowFor(old.id)).toBeUndefined();
  });
});

describe("publishing after the delay", () => {
  async function scheduled(loc: { id: string }, review: Record<string, unknown>, delayMinutes = 60) {
    await optIn(true);
    await rule(loc.id, {
      ratings: [5],
      source: "template",
      template: "Thank you!",
      mode: "auto_publish",
      delayMinutes,
    });
    const r = await ingest(w, { locationId: loc.id, rating: 5, ...review });
    const auto = (await settled(r.id))!;
    expect(auto.status).toBe("scheduled");
    return { reviewId: r.id as string, auto };
  }

  it("publishes once the delay has passed, once, as system/auto-reply", async () => {
    const loc = await newLocation(w);
    const { reviewId, auto } = await scheduled(loc, { siteType: "first_party" }, 60);
    const delay = Date.parse(auto.publishAt!) - Date.parse(auto.createdAt);
    expect(delay).toBeGreaterThanOrEqual(60 * MIN);
    expect(delay).toBeLessThan(61 * MIN);

    await publishDueAutoReplies(env, db(), new Date(Date.parse(auto.publishAt!) - MIN));
    expect((await rowFor(reviewId))!.status).toBe("scheduled");

    const at = new Date(Date.parse(auto.publishAt!) + MIN);
    const runs = await Promise.all([publishDueAutoReplies(env, db(), at), publishDueAutoReplies(env, db(), at)]);
    expect(
      runs
        .flatMap((r) => r.outcomes)
        .filter((o) => o.id === auto.id)
        .map((o) => o.status),
    ).toEqual(["published"]);
    expect(await rowFor(reviewId)).toMatchObject({ status: "published", attempts: 1, lastError: null });
    const response = await responseOf(auto.responseId!);
    expect(response).toMatchObject({ status: "published", publishedVia: "local", decidedByUserId: null });
    expect((await w.as("viewer").get(`/v1/reviews/${reviewId}`)).body.status).toBe("responded");
    const moves = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, response.id)));
    expect(moves.map((a) => a.action).sort()).toEqual([
      "response.approved",
      "response.created",
      "response.published",
      "response.submitted",
    ]);
    for (const a of moves) expect(a).toMatchObject({ actorType: "system", metadata: { job: "auto-reply" } });
  });

  it("a rejection cancels the schedule in the same move; the sweep leaves it alone", async () => {
    const loc = await newLocation(w);
    const { reviewId, auto } = await scheduled(loc, { siteType: "first_party" });
    const rejected = await w.as("manager").post(`/v1/responses/${auto.responseId}/reject`, { reason: "too short" });
    expect(rejected.body.status).toBe("rejected");
    expect(await rowFor(reviewId)).toMatchObject({ status: "cancelled", cancelReason: "reject" });
    const cancelAudit = (await auditsOf(auto.id)).find((a) => a.action === "auto_reply.cancelled");
    expect(cancelAudit).toMatchObject({ actorType: "user", actorId: w.users.manager.id });
    await publishDueAutoReplies(env, db(), new Date(Date.parse(auto.publishAt!) + MIN));
    expect((await responseOf(auto.responseId!)).status).toBe("rejected");
  });

  it("a person's approval does not cancel: the sweep publishes what they approved", async () => {
    const loc = await newLocation(w);
    const { reviewId, auto } = await scheduled(loc, { siteType: "first_party" });
    expect((await w.as("manager").post(`/v1/responses/${auto.responseId}/approve`)).body.status).toBe("approved");
    await publishDueAutoReplies(env, db(), new Date(Date.parse(auto.publishAt!) + MIN));
    expect((await rowFor(reviewId))!.status).toBe("published");
    expect((await responseOf(auto.responseId!)).decidedByUserId).toBe(w.users.manager.id);
  });

  it("a person who approves and publishes it first cancels the schedule (reason publish)", async () => {
    const loc = await newLocation(w);
    const { reviewId, auto } = await scheduled(loc, { siteType: "first_party" });
    await w.as("manager").post(`/v1/responses/${auto.responseId}/approve`);
    const published = await w.as("manager").post(`/v1/responses/${auto.responseId}/publish`);
    expect(published.body.status).toBe("published");
    expect(await rowFor(reviewId)).toMatchObject({ status: "cancelled", cancelReason: "publish" });
    await publishDueAutoReplies(env, db(), new Date(Date.parse(auto.publishAt!) + MIN));
    expect((await rowFor(reviewId))!.status).toBe("cancelled");
  });

  it("POST /v1/auto-replies/{id}/cancel stops it; the response stays in the approval queue", async () => {
    const loc = await newLocation(w);
    const { auto } = await scheduled(loc, { siteType: "first_party" });
    expect((await w.as("tenantBAdmin").post(`/v1/auto-replies/${auto.id}/cancel`)).status).toBe(404);
    expect((await w.as("viewer").post(`/v1/auto-replies/${auto.id}/cancel`)).status).toBe(403);
    const res = await w.as("tenantUser").post(`/v1/auto-replies/${auto.id}/cancel`);
    expect(res.body).toMatchObject({ status: "cancelled", cancelReason: "cancel" });
    const again = await w.as("tenantUser").post(`/v1/auto-replies/${auto.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "cancelled", to: "cancelled" } });
    await publishDueAutoReplies(env, db(), new Date(Date.parse(auto.publishAt!) + MIN));
    expect((await responseOf(auto.responseId!)).status).toBe("submitted");
    expect((await w.as("tenantBAdmin").get(`/v1/auto-replies/${auto.id}`)).status).toBe(404);
  });

  it("a site's refusal is retried, then fails and leaves the response approved for a person", async () => {
    const loc = await newLocation(w);
    const conn = await w.as("tenantAdmin").post("/v1/integrations", {
      locationId: loc.id,
      connectorType: "google",
      name: "Google",
      config: { accountId: "1", locationId: "2" },
      credentials: { accessToken: "t" },
    });
    expect(conn.status).toBe(201);
    const { reviewId, auto } = await scheduled(loc, { siteType: "google", externalReviewId: `g-${Math.random()}` });
    // the location is verified (Verifications API, asked once before the first reply); the replies get 503
    const site = standIn((call) =>
      call.url.pathname.endsWith("/VoiceOfMerchantState")
        ? jsonResponse({ hasVoiceOfMerchant: true })
        : jsonResponse({ error: { code: 503, message: "Backend unavailable" } }, 503),
    );
    let at = new Date(Date.parse(auto.publishAt!) + MIN);
    await publishDueAutoReplies(env, db(), at, { fetch: site.fetch });
    const retry = (await rowFor(reviewId))!;
    expect(retry).toMatchObject({
      status: "scheduled",
      attempts: 1,
      lastError: expect.stringContaining("UPSTREAM_ERROR"),
    });
    expect(Date.parse(retry.publishAt!) - at.getTime()).toBe(15 * MIN);
    for (const gap of [15, 30]) {
      at = new Date(at.getTime() + gap * MIN);
      await publishDueAutoReplies(env, db(), at, { fetch: site.fetch });
    }
    expect(await rowFor(reviewId)).toMatchObject({ status: "failed", attempts: 3 });
    const replies = site.calls.filter((c) => c.method === "PUT");
    expect(replies).toHaveLength(3);
    expect(replies[0]!.body).toEqual({ comment: "Thank you!" });
    expect((await responseOf(auto.responseId!)).status).toBe("approved");
  });

  it("a paused tenant's scheduled reply waits until it is resumed", async () => {
    const loc = await newLocation(w);
    const { reviewId, auto } = await scheduled(loc, { siteType: "first_party" });
    const at = new Date(Date.parse(auto.publishAt!) + MIN);
    await db().update(tenants).set({ isActive: false }).where(eq(tenants.id, w.tenantA.id));
    try {
      await publishDueAutoReplies(env, db(), at);
      expect((await rowFor(reviewId))!.status).toBe("scheduled");
    } finally {
      await db().update(tenants).set({ isActive: true }).where(eq(tenants.id, w.tenantA.id));
    }
    await publishDueAutoReplies(env, db(), at);
    expect((await rowFor(reviewId))!.status).toBe("published");
  });

  it("after opting out, a rule's new drafts wait for approval", async () => {
    const loc = await newLocation(w);
    await optIn(true);
    await rule(loc.id, {
      ratings: [5],
      source: "template",
      template: "Thanks!",
      mode: "auto_publish",
      delayMinutes: 5,
    });
    await optIn(false);
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5 });
    expect(await settled(review.id)).toMatchObject({ mode: "approval", status: "queued", publishAt: null });
    await optIn(true);
  });
});

describe("MCP", () => {
  it("review.auto-replies shows this tenant's scheduled replies to a read:approvals key", async () => {
    const loc = await newLocation(w);
    await optIn(true);
    await rule(loc.id, {
      ratings: [5],
      source: "template",
      template: "Thanks!",
      mode: "auto_publish",
      delayMinutes: 1440,
    });
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5 });
    const auto = (await settled(review.id))!;
    const key = await w.as("tenantAdmin").post("/v1/api-keys", { name: "mcp", scopes: ["read:approvals"] });
    const { client } = await connect({ token: key.body.key });
    const out = structured(
      await client.callTool({ name: "review.auto-replies", arguments: { status: "scheduled", limit: 200 } }),
    );
    const mine = out.data.find((a: { id: string }) => a.id === auto.id);
    expect(mine).toMatchObject({
      status: "scheduled",
      reviewId: review.id,
      responseId: auto.responseId,
      publishAt: auto.publishAt,
    });
    expect(out.data.every((a: { status: string }) => a.status === "scheduled")).toBe(true);
    const bKey = await w.as("tenantBAdmin").post("/v1/api-keys", { name: "mcp b", scopes: ["read:approvals"] });
    const b = structured(
      await (await connect({ token: bKey.body.key })).client.callTool({ name: "review.auto-replies", arguments: {} }),
    );
    expect(b.data.map((a: { id: string }) => a.id)).not.toContain(auto.id);
  });
});

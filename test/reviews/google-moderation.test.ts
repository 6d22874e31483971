import { createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents, inboxItems, integrations } from "../../src/db/schema";
import { checkPendingReplies, RECHECK_MINUTES } from "../../src/modules/reviews/moderation-sweep";
import { publishResponse } from "../../src/modules/reviews/publish";
import { consumeReviewSync } from "../../src/modules/reviews/sync";
import { createWorld, db, type World } from "../helpers/seed";
import { GoogleStandIn } from "./google-standin";
import { ctxFor, ingest, newLocation } from "./helpers";

// Google moderates owner replies (reviewReplyState PENDING / ACTIVE / REJECTED + policyViolation) and
// takes them only for verified locations, at most 10 edits per minute per profile: the stand-in speaks
// those rules (google-standin.ts), the response state table follows (response-states.ts).

let w: World;
let seq = 0;

beforeAll(async () => {
  w = await createWorld();
});

const manager = () => ctxFor(w.tenantA.id, w.users.manager.id);

/** A location connected to its own Google profile on the stand-in. */
async function connected(google: GoogleStandIn, o: { verified?: boolean } = {}) {
  const loc = await newLocation(w);
  const googleLocationId = `gl-${++seq}`;
  const res = await w.as("tenantAdmin").post("/v1/integrations", {
    connectorType: "google",
    name: "Google",
    locationId: loc.id,
    config: { accountId: "acc", locationId: googleLocationId },
    credentials: { accessToken: "g-token" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  google.profiles.set(`accounts/acc/locations/${googleLocationId}`, { verified: o.verified ?? true, reviews: [] });
  return { locationId: loc.id, googleLocationId, integrationId: res.body.id as string };
}

/** A Google review on the stand-in and here, with an approved response ready to publish. */
async function approvedReply(
  google: GoogleStandIn,
  c: { locationId: string; googleLocationId: string },
  text = "Thank you for visiting!",
) {
  const externalReviewId = `rv-${++seq}`;
  const standInReview = google.addReview("acc", c.googleLocationId, externalReviewId);
  const review = await ingest(w, {
    locationId: c.locationId,
    siteType: "google",
    externalReviewId,
    rating: 4,
    text: "Nice",
  });
  const created = await w.as("tenantUser").post(`/v1/reviews/${review.id}/responses`, { text });
  await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
  expect((await w.as("manager").post(`/v1/responses/${created.body.id}/approve`)).body.status).toBe("approved");
  return { reviewId: review.id as string, responseId: created.body.id as string, reviewName: standInReview.name };
}

const inboxStatus = async (reviewId: string) =>
  (await db().select().from(inboxItems).where(eq(inboxItems.reviewId, reviewId)).get())!.status;
const reviewStatus = async (reviewId: string) => (await w.as("viewer").get(`/v1/reviews/${reviewId}`)).body.status;
const responseOf = async (reviewId: string) => (await w.as("viewer").get(`/v1/reviews/${reviewId}/responses`)).body[0];
const publish = (google: GoogleStandIn, responseId: string) =>
  publishResponse(manager(), responseId, { fetch: google.fetch, now: google.clock });

describe("Google reply moderation", () => {
  it("PENDING: the response stays approved, marked pending, the inbox item in progress; publishing again is refused without calling Google", async () => {
    const google = new GoogleStandIn(Date.now());
    const c = await connected(google);
    const { reviewId, responseId } = await approvedReply(google, c);

    const out = await publish(google, responseId);
    expect(out).toMatchObject({
      status: "approved",
      publishedAt: null,
      publishedVia: "google",
      moderation: { state: "pending", policyViolation: null },
    });
    expect(google.log.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual([
      `GET /v1/locations/${c.googleLocationId}/VoiceOfMerchantState 200`,
      `PUT /v4/accounts/acc/locations/${c.googleLocationId}/reviews/${google.findReview(`accounts/acc/locations/${c.googleLocationId}/reviews/rv-${seq}`)!.reviewId}/reply 200`,
    ]);
    expect(await reviewStatus(reviewId)).toBe("new");
    expect(await inboxStatus(reviewId)).toBe("in_progress");
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, responseId), eq(auditEvents.action, "response.moderation_pending")))
      .get();
    expect(audit?.nextState).toMatchObject({ status: "approved", providerState: "pending" });

    await expect(publish(google, responseId)).rejects.toMatchObject({
      code: "INVALID_TRANSITION",
      status: 409,
      details: { from: "approved", to: "published", moderation: "pending" },
    });
    expect(google.log).toHaveLength(2);
  });

  it("the reply-moderation sweep reads the verdict back: ACTIVE publishes the response, the review is responded", async () => {
    const google = new GoogleStandIn(Date.now());
    const c = await connected(google);
    const { reviewId, responseId, reviewName } = await approvedReply(google, c);
    await publish(google, responseId);

    // not due yet: read less than RECHECK_MINUTES ago
    expect((await checkPendingReplies(env, db(), new Date(), { fetch: google.fetch, now: google.clock })).moved).toBe(
      0,
    );
    google.moderateReply(reviewName, "ACTIVE");
    const later = new Date(Date.now() + (RECHECK_MINUTES + 1) * 60_000);
    const run = await checkPendingReplies(env, db(), later, { fetch: google.fetch, now: google.clock });
    expect(run.moved).toBeGreaterThanOrEqual(1);
    expect(google.log.at(-1)).toMatchObject({ method: "GET", path: `/v4/${reviewName}`, status: 200 });

    expect(await responseOf(reviewId)).toMatchObject({
      id: responseId,
      status: "published",
      publishedVia: "google",
      moderation: { state: "active" },
    });
    expect((await responseOf(reviewId)).publishedAt).not.toBeNull();
    expect(await reviewStatus(reviewId)).toBe("responded");
    expect(await inboxStatus(reviewId)).toBe("responded");
    const events = (await db().select().from(domainEvents).where(eq(domainEvents.type, "response.published"))).filter(
      (e) => e.data.responseId === responseId,
    );
    expect(events).toHaveLength(1);
  });

  it("REJECTED at once: the response is rejected with Google's policy as the reason; edited and sent again it is published", async () => {
    let verdict: "REJECTED" | "ACTIVE" = "REJECTED";
    const google = new GoogleStandIn(Date.now(), { moderate: () => verdict });
    const c = await connected(google);
    const { reviewId, responseId } = await approvedReply(google, c, "Call 555-0100 for 50% off!");

    const out = await publish(google, responseId);
    expect(out).toMatchObject({
      status: "rejected",
      publishedAt: null,
      moderation: {
        state: "rejected",
        policyViolation: "PROHIBITED_CONTENT: The reply contains content that violates Google's policy.",
      },
    });
    expect(out.rejectionReason).toContain("Google rejected the reply (policy: PROHIBITED_CONTENT");
    expect(await reviewStatus(reviewId)).toBe("new");
    expect(await inboxStatus(reviewId)).toBe("new");

    // the person fixes it: rejected -> draft (the site's verdict cleared) -> submitted -> approved -> published
    const edited = await w
      .as("tenantUser")
      .patch(`/v1/responses/${responseId}`, { text: "Thank you, we hope to see you again." });
    expect(edited.body).toMatchObject({ status: "draft", rejectionReason: null, moderation: null });
    await w.as("manager").post(`/v1/responses/${responseId}/submit`);
    await w.as("manager").post(`/v1/responses/${responseId}/approve`);
    verdict = "ACTIVE";
    expect(await publish(google, responseId)).toMatchObject({
      status: "published",
      moderation: { state: "active", policyViolation: null },
    });
    expect(await reviewStatus(reviewId)).toBe("responded");
  });

  it("a sync page that shows the reply REJECTED moves the pending response to rejected", async () => {
    const google = new GoogleStandIn(Date.now());
    const c = await connected(google);
    const { reviewId, responseId, reviewName } = await approvedReply(google, c);
    await publish(google, responseId);
    google.moderateReply(reviewName, "REJECTED", { type: "HARASSMENT" });

    const batch = createMessageBatch("review-sync", [
      {
        id: "sync-1",
        timestamp: new Date(),
        attempts: 1,
        body: {
          tenantId: w.tenantA.id,
          integrationId: c.integrationId,
          cursor: null,
          since: null,
          startedAt: new Date().toISOString(),
        },
      },
    ]);
    await consumeReviewSync(batch, env, db(), { fetch: google.fetch, now: google.clock });
    expect(await responseOf(reviewId)).toMatchObject({
      id: responseId,
      status: "rejected",
      moderation: { state: "rejected", policyViolation: "HARASSMENT" },
    });
    expect(await inboxStatus(reviewId)).toBe("new");
  });
});

describe("Google: replies need a verified location", () => {
  it("an unverified location is a 422 with the rule before the reply is sent; once verified it goes", async () => {
    const google = new GoogleStandIn(Date.now(), { moderate: () => "ACTIVE" });
    const c = await connected(google, { verified: false });
    const { reviewId, responseId } = await approvedReply(google, c);

    await expect(publish(google, responseId)).rejects.toMatchObject({
      code: "PUBLISH_UNSUPPORTED",
      status: 422,
      details: {
        siteType: "google",
        reason: "location_not_verified",
        replyUrl: "https://business.google.com/",
        rule: expect.stringContaining("only valid if the specified location is verified"),
      },
    });
    // only the Verifications API was asked; no reply was sent
    expect(google.log.map((l) => l.method)).toEqual(["GET"]);
    expect(await responseOf(reviewId)).toMatchObject({ status: "approved", moderation: null });
    const row = await db().select().from(integrations).where(eq(integrations.id, c.integrationId)).get();
    expect(row).toMatchObject({ siteVerified: false });

    google.setVerified("acc", c.googleLocationId, true);
    expect(await publish(google, responseId)).toMatchObject({ status: "published" });
  });

  it("a location that lost its verification since: Google's FAILED_PRECONDITION is the same 422, and remembered", async () => {
    const google = new GoogleStandIn(Date.now(), { moderate: () => "ACTIVE" });
    const c = await connected(google);
    const first = await approvedReply(google, c);
    expect(await publish(google, first.responseId)).toMatchObject({ status: "published" });

    google.setVerified("acc", c.googleLocationId, false);
    const second = await approvedReply(google, c);
    await expect(publish(google, second.responseId)).rejects.toMatchObject({
      code: "PUBLISH_UNSUPPORTED",
      details: { reason: "location_not_verified" },
    });
    // verified within the day, so no new VoiceOfMerchantState call: Google's answer to the reply said it
    expect(google.log.at(-1)).toMatchObject({ method: "PUT", status: 400 });
    expect(await db().select().from(integrations).where(eq(integrations.id, c.integrationId)).get()).toMatchObject({
      siteVerified: false,
    });
    expect(await responseOf(second.reviewId)).toMatchObject({ status: "approved" });
  });
});

describe("Google: 10 edits per minute per profile", () => {
  it("the 11th reply within a minute is a 429 RATE_LIMITED with Retry-After, held back by our limiter; a minute later it goes", async () => {
    const google = new GoogleStandIn(Date.parse("2026-09-01T00:00:00Z"), { moderate: () => "ACTIVE", latencyMs: 500 });
    const c = await connected(google);
    const replies = [];
    for (let i = 0; i < 11; i++) replies.push(await approvedReply(google, c));
    for (const r of replies.slice(0, 10))
      expect(await publish(google, r.responseId)).toMatchObject({ status: "published" });

    const err = await publish(google, replies[10]!.responseId).catch((e) => e);
    expect(err).toMatchObject({ code: "RATE_LIMITED", status: 429, details: { siteType: "google" } });
    const wait = Number(err.headers["Retry-After"]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // Google never saw an 11th edit, so never answered 429
    expect(google.log.filter((l) => l.method === "PUT")).toHaveLength(10);
    expect(google.figures().rateLimited).toBe(0);
    expect(await responseOf(replies[10]!.reviewId)).toMatchObject({ status: "approved", moderation: null });

    google.now += wait * 1000;
    expect(await publish(google, replies[10]!.responseId)).toMatchObject({ status: "published" });
  });
});

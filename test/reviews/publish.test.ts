import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents } from "../../src/db/schema";
import { publishResponse } from "../../src/modules/reviews/publish";
import { createWorld, db, type World } from "../helpers/seed";
import { callConfirmed, connect, mintTestKey, structured } from "../mcp/helpers";
import { type Call, ctxFor, ingest, jsonResponse, newLocation, standIn } from "./helpers";

let w: World;
let loc: { id: string };
let bare: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
  bare = await newLocation(w, "manager", { googleMyBusinessUrl: "https://g.page/r/bare-location/review" });
  const connect = async (body: Record<string, unknown>) => {
    const res = await w.as("tenantAdmin").post("/v1/integrations", { locationId: loc.id, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  await connect({
    connectorType: "google",
    name: "Google",
    config: { accountId: "111", locationId: "222" },
    credentials: { accessToken: "g-token" },
  });
  await connect({
    connectorType: "trustpilot",
    name: "Trustpilot",
    config: { businessUnitId: "bu-1", businessUserId: "biz-user-7" },
    credentials: { accessToken: "tp-token" },
  });
  await connect({
    connectorType: "yelp",
    name: "Yelp",
    config: { businessId: "yelp-biz" },
    credentials: { apiKey: "fusion-key", partnerAccessToken: "r2r-token" },
  });
  await connect({
    connectorType: "facebook",
    name: "Facebook",
    config: { pageId: "page-5" },
    credentials: { pageAccessToken: "fb-token" },
  });
});

/** An approved response to a new review of the given site, ready to publish. */
async function approvedFor(review: Record<string, unknown>) {
  const r = await ingest(w, { locationId: loc.id, rating: 4, text: "Nice", ...review });
  const created = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "Thank you for visiting!" });
  await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
  expect((await w.as("manager").post(`/v1/responses/${created.body.id}/approve`)).body.status).toBe("approved");
  return { reviewId: r.id as string, responseId: created.body.id as string };
}

const manager = () => ctxFor(w.tenantA.id, w.users.manager.id);

/** Google: the Verifications API says the location is verified (asked before a reply); the other calls go to `answer`. */
const google = (answer: (call: Call) => Response) =>
  standIn((call) =>
    call.url.pathname.endsWith("/VoiceOfMerchantState")
      ? jsonResponse({ hasVoiceOfMerchant: true, hasBusinessAuthority: true })
      : answer(call),
  );

describe("publish through each site's reply API", () => {
  it("Google Business Profile: PUT .../reviews/{r}/reply {comment} with the Bearer token", async () => {
    const { reviewId, responseId } = await approvedFor({ siteType: "google", externalReviewId: "g-review-1" });
    const site = google(() =>
      jsonResponse({
        comment: "Thank you for visiting!",
        updateTime: "2026-03-01T00:00:00Z",
        reviewReplyState: "ACTIVE",
      }),
    );
    const out = await publishResponse(manager(), responseId, { fetch: site.fetch });
    expect(out).toMatchObject({
      status: "published",
      publishedVia: "google",
      moderation: { state: "active", policyViolation: null },
    });
    // the location's verification first (Verifications API), then the reply
    expect(site.calls.map((c) => `${c.method} ${c.url.host}${c.url.pathname}`)).toEqual([
      "GET mybusinessverifications.googleapis.com/v1/locations/222/VoiceOfMerchantState",
      "PUT mybusiness.googleapis.com/v4/accounts/111/locations/222/reviews/g-review-1/reply",
    ]);
    const call = site.calls[1];
    expect(call!.method).toBe("PUT");
    expect(call!.url.toString()).toBe(
      "https://mybusiness.googleapis.com/v4/accounts/111/locations/222/reviews/g-review-1/reply",
    );
    expect(call!.headers.get("authorization")).toBe("Bearer g-token");
    expect(call!.headers.get("content-type")).toBe("application/json");
    expect(call!.body).toEqual({ comment: "Thank you for visiting!" });
    expect((await w.as("viewer").get(`/v1/reviews/${reviewId}`)).body.status).toBe("responded");
  });

  it("Trustpilot: POST /v1/private/reviews/{id}/reply {authorBusinessUserId, message}", async () => {
    const { responseId } = await approvedFor({ siteType: "trustpilot", externalReviewId: "tp-review-1" });
    const site = standIn(() => new Response(null, { status: 201 }));
    expect((await publishResponse(manager(), responseId, { fetch: site.fetch })).publishedVia).toBe("trustpilot");
    const [call] = site.calls;
    expect(call!.method).toBe("POST");
    expect(call!.url.toString()).toBe("https://api.trustpilot.com/v1/private/reviews/tp-review-1/reply");
    expect(call!.headers.get("authorization")).toBe("Bearer tp-token");
    expect(call!.body).toEqual({ authorBusinessUserId: "biz-user-7", message: "Thank you for visiting!" });
  });

  it("Yelp: the partner Respond to Reviews API with the business user's token", async () => {
    const { responseId } = await approvedFor({ siteType: "yelp", externalReviewId: "yelp-review-1" });
    const site = standIn(() => jsonResponse({}));
    expect((await publishResponse(manager(), responseId, { fetch: site.fetch })).publishedVia).toBe("yelp");
    const [call] = site.calls;
    expect(call!.method).toBe("POST");
    expect(call!.url.toString()).toBe("https://partner-api.yelp.com/reviews/v1/yelp-review-1");
    expect(call!.headers.get("authorization")).toBe("Bearer r2r-token");
    expect(call!.body).toEqual({ response_text: "Thank you for visiting!", response_type: "public_comment" });
  });

  it("a site's refusal is 502 UPSTREAM_ERROR with the site's error, and the response stays approved", async () => {
    const { reviewId, responseId } = await approvedFor({ siteType: "google", externalReviewId: "g-review-2" });
    const site = google(() =>
      jsonResponse(
        { error: { code: 403, message: "The caller does not have permission", status: "PERMISSION_DENIED" } },
        403,
      ),
    );
    await expect(publishResponse(manager(), responseId, { fetch: site.fetch })).rejects.toMatchObject({
      code: "UPSTREAM_ERROR",
      status: 502,
      details: {
        siteType: "google",
        upstreamStatus: 403,
        upstreamError: expect.stringContaining("The caller does not have permission"),
      },
    });
    const kept = await w.as("viewer").get(`/v1/reviews/${reviewId}/responses`);
    expect(kept.body[0]).toMatchObject({ status: "approved", publishedAt: null });
    const again = google(() => jsonResponse({ comment: "ok" }));
    expect((await publishResponse(manager(), responseId, { fetch: again.fetch })).status).toBe("published");
  });

  it("a Google reply over 4096 bytes is a 400 before anything is sent", async () => {
    const long = await ingest(w, { locationId: loc.id, siteType: "google", externalReviewId: "g-review-4", rating: 5 });
    const created = await w.as("tenantUser").post(`/v1/reviews/${long.id}/responses`, { text: "é".repeat(2100) });
    await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
    await w.as("manager").post(`/v1/responses/${created.body.id}/approve`);
    const site = standIn(() => jsonResponse({}));
    await expect(publishResponse(manager(), created.body.id, { fetch: site.fetch })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    expect(site.calls).toHaveLength(0);
  });
});

describe("PUBLISH_UNSUPPORTED", () => {
  it("Facebook has no reply API: 422 with the page's review URL, response stays approved", async () => {
    const { reviewId, responseId } = await approvedFor({ siteType: "facebook", externalReviewId: "fb-1" });
    const res = await w.as("manager").post(`/v1/responses/${responseId}/publish`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: "PUBLISH_UNSUPPORTED",
      details: { replyUrl: "https://www.facebook.com/page-5/reviews", siteType: "facebook", reason: "no_reply_api" },
    });
    const responses = await w.as("viewer").get(`/v1/reviews/${reviewId}/responses`);
    expect(responses.body[0]).toMatchObject({ id: responseId, status: "approved", publishedAt: null });
    expect((await w.as("viewer").get(`/v1/reviews/${reviewId}`)).body.status).toBe("new");
  });

  it("no connection for the location: 422 with the location's Google review URL", async () => {
    const r = await ingest(w, { locationId: bare.id, siteType: "google", externalReviewId: "g-bare", rating: 5 });
    const created = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "Thanks" });
    await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
    await w.as("manager").post(`/v1/responses/${created.body.id}/approve`);
    const res = await w.as("manager").post(`/v1/responses/${created.body.id}/publish`);
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual({
      replyUrl: "https://g.page/r/bare-location/review",
      siteType: "google",
      reason: "no_connection",
    });
  });

  it("a site the service has no client for (tripadvisor): 422 with the review's own URL", async () => {
    const { responseId } = await approvedFor({
      siteType: "tripadvisor",
      externalReviewId: "ta-1",
      externalUrl: "https://www.tripadvisor.com/r/ta-1",
    });
    const res = await w.as("manager").post(`/v1/responses/${responseId}/publish`);
    expect(res.status).toBe(422);
    expect(res.body.details).toMatchObject({ replyUrl: "https://www.tripadvisor.com/r/ta-1", reason: "no_connection" });
  });

  it("Yelp without a partner token offers the review's Yelp page", async () => {
    const other = await newLocation(w);
    await w.as("tenantAdmin").post("/v1/integrations", {
      locationId: other.id,
      connectorType: "yelp",
      name: "Yelp read-only",
      config: { businessId: "b" },
      credentials: { apiKey: "k" },
    });
    const r = await ingest(w, {
      locationId: other.id,
      siteType: "yelp",
      externalReviewId: "yr-2",
      rating: 2,
      externalUrl: "https://www.yelp.com/biz/b?hrid=yr-2",
    });
    const created = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "Sorry" });
    await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
    await w.as("manager").post(`/v1/responses/${created.body.id}/approve`);
    const res = await w.as("manager").post(`/v1/responses/${created.body.id}/publish`);
    expect(res.status).toBe(422);
    expect(res.body.details).toMatchObject({
      replyUrl: "https://www.yelp.com/biz/b?hrid=yr-2",
      reason: "no_reply_api",
    });
  });
});

describe("manual publishing (the reply was posted by hand on the site)", () => {
  it("moves approved -> published with publishedVia manual, who did it and the URL; audited; the review is responded", async () => {
    const { reviewId, responseId } = await approvedFor({ siteType: "facebook", externalReviewId: "fb-manual-1" });
    const res = await w.as("manager").post(`/v1/responses/${responseId}/publish`, {
      manual: true,
      externalUrl: "https://www.facebook.com/page-5/posts/1?comment_id=9",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: responseId,
      status: "published",
      publishedVia: "manual",
      publishedByUserId: w.users.manager.id,
      publishedUrl: "https://www.facebook.com/page-5/posts/1?comment_id=9",
    });
    expect(Date.parse(res.body.publishedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await w.as("viewer").get(`/v1/reviews/${reviewId}`)).body.status).toBe("responded");
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, responseId), eq(auditEvents.action, "response.published")))
      .get();
    expect(audit).toMatchObject({ actorId: w.users.manager.id, tenantId: w.tenantA.id });
    expect(audit!.nextState).toMatchObject({
      status: "published",
      publishedVia: "manual",
      publishedByUserId: w.users.manager.id,
    });
    const events = (await db().select().from(domainEvents).where(eq(domainEvents.type, "response.published"))).filter(
      (e) => e.data.responseId === responseId,
    );
    expect(events).toHaveLength(1);
    // a second time is an invalid move, as for an API publish
    const again = await w.as("manager").post(`/v1/responses/${responseId}/publish`, { manual: true });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("INVALID_TRANSITION");
  });

  it("works without a URL, needs manager, an approved response, and a sane body; another tenant's id is 404", async () => {
    const { responseId } = await approvedFor({ siteType: "google", externalReviewId: "g-manual-2" });
    expect((await w.as("tenantUser").post(`/v1/responses/${responseId}/publish`, { manual: true })).status).toBe(403);
    for (const body of [
      { manual: true, externalUrl: "javascript:alert(1)" },
      { manual: true, externalUrl: "not a url" },
      { externalUrl: "https://x.example/r" },
      { manual: "yes" },
    ]) {
      const bad = await w.as("manager").post(`/v1/responses/${responseId}/publish`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.code).toBe("VALIDATION_ERROR");
    }
    expect(
      (await w.as("tenantBAdmin", w.tenantB.id).post(`/v1/responses/${responseId}/publish`, { manual: true })).status,
    ).toBe(404);
    const ok = await w.as("manager").post(`/v1/responses/${responseId}/publish`, { manual: true });
    expect(ok.body).toMatchObject({
      status: "published",
      publishedVia: "manual",
      publishedUrl: null,
      publishedByUserId: w.users.manager.id,
    });

    const r = await ingest(w, { locationId: loc.id, siteType: "facebook", externalReviewId: "fb-draft", rating: 3 });
    const draft = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "Draft" });
    const notApproved = await w.as("manager").post(`/v1/responses/${draft.body.id}/publish`, { manual: true });
    expect(notApproved.status).toBe(409);
    expect(notApproved.body.code).toBe("INVALID_TRANSITION");
  });

  it("is offered as the MCP skill response.mark-published (write:responses)", async () => {
    const { reviewId, responseId } = await approvedFor({ siteType: "yelp", externalReviewId: "yelp-manual-3" });
    const readOnly = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews"]).token });
    expect((await readOnly.client.listTools()).tools.map((t) => t.name)).not.toContain("response.mark-published");
    const key = mintTestKey(w.tenantA.id, ["read:reviews", "write:responses"]);
    const writer = await connect({ token: key.token });
    const tool = (await writer.client.listTools()).tools.find((t) => t.name === "response.mark-published");
    expect(tool?.inputSchema.required).toEqual(["responseId"]);
    // a session client without elicitation must say the user confirmed; without it nothing happens
    const unconfirmed = await writer.client.callTool({ name: "response.mark-published", arguments: { responseId } });
    expect(unconfirmed.isError).toBe(true);
    expect((await w.as("viewer").get(`/v1/reviews/${reviewId}`)).body.status).not.toBe("responded");
    const done = structured(
      await callConfirmed(writer.client, "response.mark-published", {
        responseId,
        externalUrl: "https://www.yelp.com/biz/x?hrid=1",
      }),
    );
    expect(done).toMatchObject({
      id: responseId,
      status: "published",
      publishedVia: "manual",
      publishedUrl: "https://www.yelp.com/biz/x?hrid=1",
      publishedByUserId: null,
    });
    expect((await w.as("viewer").get(`/v1/reviews/${reviewId}`)).body.status).toBe("responded");
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, responseId), eq(auditEvents.action, "response.published")))
      .get();
    expect(audit).toMatchObject({ actorType: "system", actorId: key.keyId });
    // another tenant's key cannot reach it
    const other = await connect({ token: mintTestKey(w.tenantB.id, ["read:reviews", "write:responses"]).token });
    const refused = await callConfirmed(other.client, "response.mark-published", { responseId });
    expect(refused.isError).toBe(true);
  });
});

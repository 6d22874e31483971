import { beforeAll, describe, expect, it } from "vitest";
import { publishResponse } from "../../src/modules/reviews/publish";
import { createWorld, type World } from "../helpers/seed";
import { ctxFor, ingest, jsonResponse, newLocation, standIn } from "./helpers";

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
  await connect({ connectorType: "google", name: "Google", config: { accountId: "111", locationId: "222" }, credentials: { accessToken: "g-token" } });
  await connect({ connectorType: "trustpilot", name: "Trustpilot", config: { businessUnitId: "bu-1", businessUserId: "biz-user-7" }, credentials: { accessToken: "tp-token" } });
  await connect({ connectorType: "yelp", name: "Yelp", config: { businessId: "yelp-biz" }, credentials: { apiKey: "fusion-key", partnerAccessToken: "r2r-token" } });
  await connect({ connectorType: "facebook", name: "Facebook", config: { pageId: "page-5" }, credentials: { pageAccessToken: "fb-token" } });
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

describe("publish through each site's reply API", () => {
  it("Google Business Profile: PUT .../reviews/{r}/reply {comment} with the Bearer token", async () => {
    const { reviewId, responseId } = await approvedFor({ siteType: "google", externalReviewId: "g-review-1" });
    const site = standIn(() => jsonResponse({ comment: "Thank you for visiting!", updateTime: "2026-03-01T00:00:00Z" }));
    const out = await publishResponse(manager(), responseId, { fetch: site.fetch });
    expect(out).toMatchObject({ status: "published", publishedVia: "google" });
    expect(site.calls).toHaveLength(1);
    const [call] = site.calls;
    expect(call!.method).toBe("PUT");
    expect(call!.url.toString()).toBe("https://mybusiness.googleapis.com/v4/accounts/111/locations/222/reviews/g-review-1/reply");
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
    const site = standIn(() => jsonResponse({ error: { code: 403, message: "The caller does not have permission", status: "PERMISSION_DENIED" } }, 403));
    await expect(publishResponse(manager(), responseId, { fetch: site.fetch })).rejects.toMatchObject({
      code: "UPSTREAM_ERROR", status: 502,
      details: { siteType: "google", upstreamStatus: 403, upstreamError: expect.stringContaining("The caller does not have permission") },
    });
    const kept = await w.as("viewer").get(`/v1/reviews/${reviewId}/responses`);
    expect(kept.body[0]).toMatchObject({ status: "approved", publishedAt: null });
    const again = standIn(() => jsonResponse({ comment: "ok" }));
    expect((await publishResponse(manager(), responseId, { fetch: again.fetch })).status).toBe("published");
  });

  it("a Google reply over 4096 bytes is a 400 before anything is sent", async () => {
    const long = await ingest(w, { locationId: loc.id, siteType: "google", externalReviewId: "g-review-4", rating: 5 });
    const created = await w.as("tenantUser").post(`/v1/reviews/${long.id}/responses`, { text: "é".repeat(2100) });
    await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
    await w.as("manager").post(`/v1/responses/${created.body.id}/approve`);
    const site = standIn(() => jsonResponse({}));
    await expect(publishResponse(manager(), created.body.id, { fetch: site.fetch })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(site.calls).toHaveLength(0);
  });
});

describe("PUBLISH_UNSUPPORTED", () => {
  it("Facebook has no reply API: 422 with the page's review URL, response stays approved", async () => {
    const { reviewId, responseId } = await approvedFor({ siteType: "facebook", externalReviewId: "fb-1" });
    const res = await w.as("manager").post(`/v1/responses/${responseId}/publish`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "PUBLISH_UNSUPPORTED", details: { replyUrl: "https://www.facebook.com/page-5/reviews", siteType: "facebook", reason: "no_reply_api" } });
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
    expect(res.body.details).toEqual({ replyUrl: "https://g.page/r/bare-location/review", siteType: "google", reason: "no_connection" });
  });

  it("a site the service has no client for (tripadvisor): 422 with the review's own URL", async () => {
    const { responseId } = await approvedFor({ siteType: "tripadvisor", externalReviewId: "ta-1", externalUrl: "https://www.tripadvisor.com/r/ta-1" });
    const res = await w.as("manager").post(`/v1/responses/${responseId}/publish`);
    expect(res.status).toBe(422);
    expect(res.body.details).toMatchObject({ replyUrl: "https://www.tripadvisor.com/r/ta-1", reason: "no_connection" });
  });

  it("Yelp without a partner token offers the review's Yelp page", async () => {
    const other = await newLocation(w);
    await w.as("tenantAdmin").post("/v1/integrations", { locationId: other.id, connectorType: "yelp", name: "Yelp read-only", config: { businessId: "b" }, credentials: { apiKey: "k" } });
    const r = await ingest(w, { locationId: other.id, siteType: "yelp", externalReviewId: "yr-2", rating: 2, externalUrl: "https://www.yelp.com/biz/b?hrid=yr-2" });
    const created = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "Sorry" });
    await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
    await w.as("manager").post(`/v1/responses/${created.body.id}/approve`);
    const res = await w.as("manager").post(`/v1/responses/${created.body.id}/publish`);
    expect(res.status).toBe(422);
    expect(res.body.details).toMatchObject({ replyUrl: "https://www.yelp.com/biz/b?hrid=yr-2", reason: "no_reply_api" });
  });
});

import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { auditEvents, integrations, reviewResponses, reviews } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { publishResponse } from "../../src/modules/reviews/publish";
import { consumeReviewSync, type ReviewSyncJob, scheduleDueSyncs } from "../../src/modules/reviews/sync";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { ctxFor, ingest, newLocation } from "./helpers";
import { graphStandIn, trustpilotStandIn, yelpR2RStandIn } from "./site-standins";

// Review sites' rules (docs/reviews.md, "Providers' rules"), against stand-ins that speak them.
let w: World;
let loc: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
});

async function connect(body: Record<string, unknown>) {
  const res = await w.as("tenantAdmin").post("/v1/integrations", { locationId: loc.id, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function sync(integrationId: string, fetchFn: typeof fetch) {
  const body: ReviewSyncJob = {
    tenantId: w.tenantA.id,
    integrationId,
    cursor: null,
    since: null,
    startedAt: new Date().toISOString(),
  };
  const batch = createMessageBatch("review-sync", [
    { id: `m-${Math.random()}`, timestamp: new Date(), attempts: 1, body },
  ]);
  const retry = vi.spyOn(batch.messages[0]!, "retry");
  const ctx = createExecutionContext();
  await consumeReviewSync(batch, env, db(), { fetch: fetchFn });
  return { ...(await getQueueResult(batch, ctx)), delays: retry.mock.calls.map(([o]) => o?.delaySeconds) };
}

const row = async (id: string) => (await db().select().from(integrations).where(eq(integrations.id, id)))[0]!;

describe("Facebook: a Graph API deprecation marks the integration as needing attention", () => {
  it("error 12 on v22: needsAttention with the site's message, not retried, not polled again; an edit clears it", async () => {
    const fb = await connect({
      connectorType: "facebook",
      name: "FB v22",
      config: { pageId: "page-22", graphVersion: "v22.0" },
      credentials: { pageAccessToken: "fb-token" },
    });
    const graph = graphStandIn({ token: "fb-token" });
    const result = await sync(fb.id, graph.fetch);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    const got = await w.as("viewer").get(`/v1/integrations/${fb.id}`);
    expect(got.body).toMatchObject({
      needsAttention: true,
      lastSyncStatus: "error",
      attention: {
        code: "facebook_api_deprecated",
        message: expect.stringContaining(
          "Graph error 12: (#12) recommendation_type field is deprecated for versions v22.0 and higher",
        ),
      },
    });
    const audits = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, fb.id), eq(auditEvents.action, "integration.needs_attention")));
    expect(audits).toHaveLength(1);
    // a redelivery records nothing new
    await sync(fb.id, graph.fetch);
    expect(
      await db()
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.resourceId, fb.id), eq(auditEvents.action, "integration.needs_attention"))),
    ).toHaveLength(1);

    // the periodic sweep leaves it alone
    await db().update(integrations).set({ syncRequestedAt: null }).where(eq(integrations.id, fb.id));
    const sent: unknown[] = [];
    await scheduleDueSyncs(
      { ...env, REVIEW_SYNC: { sendBatch: async (b: unknown[]) => void sent.push(...b) } as unknown as Queue },
      db(),
      new Date(),
    );
    expect(sent.map((m) => (m as { body: ReviewSyncJob }).body.integrationId)).not.toContain(fb.id);

    // the person fixes the version: attention cleared, the next sync works
    const fixed = await w
      .as("tenantAdmin")
      .patch(`/v1/integrations/${fb.id}`, { config: { pageId: "page-22", graphVersion: "v21.0" } });
    expect(fixed.body).toMatchObject({ needsAttention: false, attention: null });
    await sync(fb.id, graph.fetch);
    expect(await row(fb.id)).toMatchObject({ lastSyncStatus: "ok", attentionCode: null });
  });

  it("an expired token (190) is token_invalid", async () => {
    const fb = await connect({
      connectorType: "facebook",
      name: "FB old token",
      config: { pageId: "page-1" },
      credentials: { pageAccessToken: "stale" },
    });
    await sync(fb.id, graphStandIn({ token: "fresh" }).fetch);
    expect((await w.as("viewer").get(`/v1/integrations/${fb.id}`)).body.attention).toMatchObject({
      code: "token_invalid",
    });
  });
});

describe("Yelp: replies only through Respond to Reviews, within its rules", () => {
  let yelpLoc: { id: string };
  let yelpId: string;
  beforeAll(async () => {
    yelpLoc = await newLocation(w, "manager", { yelpUrl: "https://www.yelp.com/biz/acme-dental" });
    const res = await w.as("tenantAdmin").post("/v1/integrations", {
      locationId: yelpLoc.id,
      connectorType: "yelp",
      name: "Yelp",
      config: { businessId: "acme-dental" },
      credentials: { apiKey: "fusion", partnerAccessToken: "owner-token" },
    });
    yelpId = res.body.id;
  });
  const manager = () => ctxFor(w.tenantA.id, w.users.manager.id);
  let n = 0;
  async function approved(text = "Thank you for your visit.") {
    const r = await ingest(w, {
      locationId: yelpLoc.id,
      siteType: "yelp",
      externalReviewId: `yelp-r-${n++}-${Math.random()}`,
      rating: 4,
      text: "Good",
    });
    const created = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "placeholder" });
    await db().update(reviewResponses).set({ text }).where(eq(reviewResponses.id, created.body.id));
    await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
    expect((await w.as("manager").post(`/v1/responses/${created.body.id}/approve`)).body.status).toBe("approved");
    return created.body.id as string;
  }
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error("expected a refusal");
      },
      (e: unknown) =>
        e as { code: string; status: number; message: string; details: any; headers?: Record<string, string> },
    );

  it("checks the text before calling: over 5,000 characters or with emoji is 400 with the rule, and Yelp is not called", async () => {
    const yelp = yelpR2RStandIn({ token: "owner-token", enabled: true });
    const long = await failure(publishResponse(manager(), await approved("a".repeat(5001)), { fetch: yelp.fetch }));
    expect(long).toMatchObject({
      code: "VALIDATION_ERROR",
      status: 400,
      details: {
        issues: [
          {
            path: "text",
            message: "Yelp replies are limited to 5,000 characters; this one has 5,001 (Respond to Reviews API)",
          },
        ],
      },
    });
    const emoji = await failure(
      publishResponse(manager(), await approved("Thanks so much! \u{1F60A}"), { fetch: yelp.fetch }),
    );
    expect(emoji.details.issues).toEqual([
      { path: "text", message: "Yelp replies cannot contain emoji (Respond to Reviews API)" },
    ]);
    expect(yelp.calls).toHaveLength(0);
    // exactly 5,000 characters (non-BMP letters count once) goes through
    const ok = await publishResponse(manager(), await approved("\u{1D400}".repeat(5000)), { fetch: yelp.fetch });
    expect(ok).toMatchObject({ status: "published", publishedVia: "yelp" });
    expect((await row(yelpId)).replyAccess).toBe("granted");
  });

  it("20 replies per location per day: the 21st is 429 RATE_LIMITED before any call; Yelp's own quota error is the same 429", async () => {
    const yelp = yelpR2RStandIn({ token: "owner-token", enabled: true });
    const reviewRow = await ingest(w, {
      locationId: yelpLoc.id,
      siteType: "yelp",
      externalReviewId: `quota-${Math.random()}`,
      rating: 5,
      text: "Great",
    });
    const now = new Date().toISOString();
    const published = await db()
      .select()
      .from(reviewResponses)
      .where(and(eq(reviewResponses.tenantId, w.tenantA.id), eq(reviewResponses.publishedVia, "yelp")));
    // D1 binds at most 100 parameters per statement: one row at a time
    for (let i = published.length; i < 20; i++) {
      await db().insert(reviewResponses).values({
        id: newId(),
        tenantId: w.tenantA.id,
        reviewId: reviewRow.id,
        text: "t",
        status: "published",
        publishedAt: now,
        publishedVia: "yelp",
        createdAt: now,
        updatedAt: now,
      });
    }
    const e = await failure(publishResponse(manager(), await approved(), { fetch: yelp.fetch }));
    expect(e).toMatchObject({
      code: "RATE_LIMITED",
      status: 429,
      details: { siteType: "yelp", rule: "yelp_r2r_daily_quota", limit: 20 },
      headers: { "Retry-After": "3600" },
    });
    expect(yelp.calls).toHaveLength(0);

    // another location's replies do not count; Yelp's own refusal maps the same way
    const other = await newLocation(w);
    const otherInt = await w.as("tenantAdmin").post("/v1/integrations", {
      locationId: other.id,
      connectorType: "yelp",
      name: "Yelp 2",
      config: { businessId: "b2" },
      credentials: { apiKey: "k", partnerAccessToken: "owner-token" },
    });
    const r = await ingest(w, {
      locationId: other.id,
      siteType: "yelp",
      externalReviewId: `other-${Math.random()}`,
      rating: 5,
      text: "Great",
    });
    const created = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "Thanks!" });
    await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
    await w.as("manager").post(`/v1/responses/${created.body.id}/approve`);
    const exhausted = yelpR2RStandIn({ token: "owner-token", enabled: true, perDay: 0 });
    expect(await failure(publishResponse(manager(), created.body.id, { fetch: exhausted.fetch }))).toMatchObject({
      code: "RATE_LIMITED",
      status: 429,
    });
    expect(exhausted.calls).toHaveLength(1);
    expect(otherInt.status).toBe(201);
  });

  it("a location without the feature (R2R_COMMENTS_NOT_ALLOWED): 422 no_reply_access with the manual path, remembered, Yelp not called again", async () => {
    const loc2 = await newLocation(w, "manager", { yelpUrl: "https://www.yelp.com/biz/no-r2r" });
    const int = await w.as("tenantAdmin").post("/v1/integrations", {
      locationId: loc2.id,
      connectorType: "yelp",
      name: "Yelp no R2R",
      config: { businessId: "no-r2r" },
      credentials: { apiKey: "k", partnerAccessToken: "owner-token" },
    });
    const yelp = yelpR2RStandIn({ token: "owner-token", enabled: false });
    const publishOne = async () => {
      const r = await ingest(w, {
        locationId: loc2.id,
        siteType: "yelp",
        externalReviewId: `nr-${Math.random()}`,
        externalUrl: "https://www.yelp.com/biz/no-r2r?hrid=1",
        rating: 3,
        text: "ok",
      });
      const created = await w.as("tenantUser").post(`/v1/reviews/${r.id}/responses`, { text: "Thanks" });
      await w.as("manager").post(`/v1/responses/${created.body.id}/submit`);
      await w.as("manager").post(`/v1/responses/${created.body.id}/approve`);
      return failure(publishResponse(manager(), created.body.id, { fetch: yelp.fetch }));
    };
    expect(await publishOne()).toMatchObject({
      code: "PUBLISH_UNSUPPORTED",
      status: 422,
      details: { siteType: "yelp", reason: "no_reply_access", replyUrl: "https://www.yelp.com/biz/no-r2r?hrid=1" },
    });
    expect((await w.as("viewer").get(`/v1/integrations/${int.body.id}`)).body).toMatchObject({
      replyAccess: "denied",
      needsAttention: false,
    });
    expect(await publishOne()).toMatchObject({ code: "PUBLISH_UNSUPPORTED", details: { reason: "no_reply_access" } });
    expect(yelp.calls).toHaveLength(1);
  });
});

describe("Trustpilot: its call limits are respected and its webhooks replace polling", () => {
  it("a spent 5-minute budget (833 calls) answers 429 without calling Trustpilot; the sync retries after the window", async () => {
    const tp = await connect({
      connectorType: "trustpilot",
      name: "TP busy",
      config: { businessUnitId: "bu-busy" },
      credentials: { accessToken: "tp-token" },
    });
    // 833 calls already made in this 5-minute window (written into the counter rather than made one by one)
    await runInDurableObject(
      env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("trustpilot:bu-busy:300")),
      async (_o, state) => {
        await state.storage.put("w", { start: Math.floor(Date.now() / 300_000) * 300_000, count: 833 });
      },
    );
    const site = trustpilotStandIn({ token: "tp-token" });
    const result = await sync(tp.id, site.fetch);
    expect(site.calls).toHaveLength(0);
    expect(result.retryMessages).toHaveLength(1);
    expect(result.delays[0]).toBeGreaterThan(0);
    expect(result.delays[0]).toBeLessThanOrEqual(300);
    expect(await row(tp.id)).toMatchObject({
      lastSyncStatus: "rate_limited",
      lastSyncError: expect.stringContaining("833 calls per 5 minutes"),
    });

    // another business unit has its own budget
    const ok = await connect({
      connectorType: "trustpilot",
      name: "TP calm",
      config: { businessUnitId: "bu-calm" },
      credentials: { accessToken: "tp-token" },
    });
    await sync(ok.id, site.fetch);
    expect(site.calls).toHaveLength(1);
    expect((await row(ok.id)).lastSyncStatus).toBe("ok");
  });

  it("webhooks: a wrong secret is 401 and stores nothing; created/updated reviews are upserted, redelivery changes nothing, polling drops to daily", async () => {
    const tp = await connect({
      connectorType: "trustpilot",
      name: "TP hooks",
      config: { businessUnitId: "bu-hooks" },
      credentials: { accessToken: "tp-token", webhookSecret: "whk-secret-1" },
    });
    const path = `/webhooks/review-sites/trustpilot/${tp.id}?tenant=${w.tenantA.id}`;
    const event = (name: string, stars: number) => ({
      eventName: name,
      version: "1",
      eventData: {
        id: "53bffd360000640002975387",
        language: "en",
        title: "Great service",
        text: "Nothing other than excellent customer service.",
        stars,
        createdAt: "2026-05-20T09:34:44.000Z",
        isVerified: true,
        consumer: { id: "c-1", name: "Customer" },
      },
    });
    const post = (body: unknown, auth: string | null) =>
      request("POST", path, { body, headers: auth ? { authorization: `Basic ${btoa(auth)}` } : {} });
    const body = {
      events: [
        event("service-review-created", 5),
        { eventName: "service-review-deleted", version: "1", eventData: { id: "gone" } },
      ],
    };

    expect((await post(body, "trustpilot:wrong")).status).toBe(401);
    expect((await post(body, null)).status).toBe(401);
    expect(
      (
        await request("POST", `/webhooks/review-sites/trustpilot/${tp.id}?tenant=${w.tenantB.id}`, {
          body,
          headers: { authorization: `Basic ${btoa("trustpilot:whk-secret-1")}` },
        })
      ).status,
    ).toBe(401);
    const stored = () =>
      db()
        .select()
        .from(reviews)
        .where(
          and(
            eq(reviews.tenantId, w.tenantA.id),
            eq(reviews.siteType, "trustpilot"),
            eq(reviews.externalReviewId, "53bffd360000640002975387"),
          ),
        );
    expect(await stored()).toHaveLength(0);

    const first = await post(body, "trustpilot:whk-secret-1");
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: 2, created: 1, updated: 0 });
    expect((await post(body, "trustpilot:whk-secret-1")).body).toEqual({ received: 2, created: 0, updated: 0 });
    expect(
      (await request("POST", `${path}&secret=whk-secret-1`, { body: { events: [event("service-review-updated", 2)] } }))
        .body,
    ).toEqual({ received: 1, created: 0, updated: 1 });
    const [review] = await stored();
    expect(review).toMatchObject({
      rating: 2,
      locationId: loc.id,
      authorName: "Customer",
      text: "Great service\n\nNothing other than excellent customer service.",
      externalUrl: "https://www.trustpilot.com/reviews/53bffd360000640002975387",
    });
    expect((await w.as("viewer").get(`/v1/integrations/${tp.id}`)).body.lastWebhookAt).toEqual(expect.any(String));

    // queued two hours ago: an hourly poll would be due, but webhooks arrive, so it waits for the daily one
    await db()
      .update(integrations)
      .set({ syncRequestedAt: new Date(Date.now() - 2 * 3600_000).toISOString() })
      .where(eq(integrations.id, tp.id));
    const sent: string[] = [];
    const queue = {
      sendBatch: async (b: { body: ReviewSyncJob }[]) => void sent.push(...b.map((m) => m.body.integrationId)),
    } as unknown as Queue;
    await scheduleDueSyncs({ ...env, REVIEW_SYNC: queue }, db(), new Date());
    expect(sent).not.toContain(tp.id);
    await scheduleDueSyncs({ ...env, REVIEW_SYNC: queue }, db(), new Date(Date.now() + 25 * 3600_000));
    expect(sent).toContain(tp.id);
  });
});

describe("Yelp: no review request or review link sends people to Yelp", () => {
  it("a campaign destination, a solicitation destinationUrl or a review-link weight naming Yelp is 400 with the rule", async () => {
    const campaign = await w
      .as("manager")
      .post("/v1/campaigns", { name: "Ask on Yelp", type: "one_time", channels: ["email"], reviewDestination: "yelp" });
    expect(campaign.status).toBe(400);
    expect(campaign.body.details.issues).toEqual([
      { path: "reviewDestination", message: expect.stringContaining("Yelp forbids asking customers for reviews") },
    ]);
    const ok = await w.as("manager").post("/v1/campaigns", {
      name: "Ask on Google",
      type: "one_time",
      channels: ["email"],
      reviewDestination: "google",
    });
    expect(ok.status).toBe(201);
    expect((await w.as("manager").patch(`/v1/campaigns/${ok.body.id}`, { reviewDestination: "yelp" })).status).toBe(
      400,
    );

    const contact = await w
      .as("tenantUser")
      .post("/v1/contacts", { firstName: "Yan", email: `yan-${Math.random()}@example.com` });
    for (const url of [
      "https://www.yelp.com/writeareview/biz/acme",
      "https://m.yelp.co.uk/biz/acme",
      "https://yelp.com/biz/acme",
    ]) {
      const s = await w
        .as("tenantUser")
        .post(
          "/v1/solicitations",
          { locationId: loc.id, contactId: contact.body.id, channel: "email", destinationUrl: url },
          { "idempotency-key": crypto.randomUUID() },
        );
      expect(s.status, url).toBe(400);
      expect(s.body.details.issues[0]).toMatchObject({
        path: "destinationUrl",
        message: expect.stringContaining("cannot send people to Yelp"),
      });
    }
  });
});

import { createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { integrations, reviews } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import type { EventEnvelope } from "../../src/lib/events";
import { consumeReviewSync, type ReviewSyncJob } from "../../src/modules/reviews/sync";
import { createWorld, shardOf, type World } from "../helpers/seed";
import { GoogleStandIn } from "./google-standin";
import { newLocation } from "./helpers";

// A sync of many Google locations against a stand-in that answers 429 RESOURCE_EXHAUSTED above its
// quota, on a virtual clock (no timers): the queue is simulated here, with several consumers at once
// sharing the ProviderQuota Durable Object, as isolates do in production. The tenant is on shard 1.

const LOCATIONS = 20;
const REVIEWS_PER_LOCATION = 48;
/** the stand-in serves short pages (a server may return fewer than pageSize) so the run needs > 300 calls */
const SERVED_PAGE = 3;
const CONCURRENT_CONSUMERS = 4;

let w: World;

beforeAll(async () => {
  w = await createWorld({ shardA: 1 });
});

/** `count` Google connections of tenant A (shard 1), one per new location, on Google account `account`. */
async function connectLocations(account: string, count: number) {
  const out: { integrationId: string; locationId: string; googleLocationId: string }[] = [];
  for (let i = 0; i < count; i++) {
    const loc = await newLocation(w);
    const googleLocationId = `${account}-${i}`;
    const res = await w.as("tenantAdmin").post("/v1/integrations", {
      connectorType: "google",
      name: `Google ${googleLocationId}`,
      locationId: loc.id,
      config: { accountId: account, locationId: googleLocationId },
      credentials: { accessToken: "g-token" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    out.push({ integrationId: res.body.id, locationId: loc.id, googleLocationId });
  }
  return out;
}

interface Pending {
  body: ReviewSyncJob;
  at: number;
  attempts: number;
}

/**
 * Runs the review-sync queue on the stand-in's virtual clock until it is empty: up to
 * CONCURRENT_CONSUMERS messages at once, follow-ups and retries delivered after their delay.
 * The events the stored pages hand off (review.created...) are collected, not delivered: what their
 * consumers do with a new review (inbox items, automation, alerts, rollups) is proven by their own tests,
 * and 960 reviews' worth of it ran beside this test, most of the file's CPU.
 */
async function drain(google: GoogleStandIn, jobs: ReviewSyncJob[]) {
  const pending: Pending[] = jobs.map((body) => ({ body, at: google.now, attempts: 1 }));
  const events: EventEnvelope[] = [];
  const eventsQueue = {
    send: async (body: EventEnvelope) => void events.push(body),
    sendBatch: async (messages: { body: EventEnvelope }[]) => void events.push(...messages.map((m) => m.body)),
  } as unknown as Queue;
  let deliveries = 0;
  let dropped = 0;
  while (pending.length) {
    pending.sort((a, b) => a.at - b.at);
    if (pending[0]!.at > google.now) google.now = pending[0]!.at;
    // sorted by due time: the first due ones go, the others stay queued
    const ready = pending.splice(0, Math.min(CONCURRENT_CONSUMERS, pending.filter((p) => p.at <= google.now).length));
    await Promise.all(
      ready.map(async (p, i) => {
        deliveries++;
        const queue = {
          send: async (body: ReviewSyncJob, o?: { delaySeconds?: number }) =>
            void pending.push({ body, at: google.now + (o?.delaySeconds ?? 0) * 1000, attempts: 1 }),
        } as unknown as Queue;
        const batch = createMessageBatch("review-sync", [
          { id: `m-${deliveries}-${i}`, timestamp: new Date(google.now), attempts: p.attempts, body: p.body },
        ]);
        const msg = batch.messages[0]!;
        const retry = vi.spyOn(msg, "retry");
        // as the wiring runs it: on the tenant's shard (byTenantShard)
        await consumeReviewSync(
          batch,
          { ...env, REVIEW_SYNC: queue, EVENTS: eventsQueue },
          shardDb(env, w.tenantA.shard),
          {
            fetch: google.fetch,
            now: google.clock,
          },
        );
        const asked = retry.mock.calls[0];
        if (asked) {
          if (p.attempts >= 5)
            dropped++; // max_retries in wrangler.toml: it would dead-letter
          else
            pending.push({
              body: p.body,
              at: google.now + (asked[0]?.delaySeconds ?? 0) * 1000,
              attempts: p.attempts + 1,
            });
        }
      }),
    );
  }
  return { deliveries, dropped, events };
}

async function storedIds(locationIds: string[]) {
  const rows = await shardOf(w.tenantA)
    .select({ id: reviews.externalReviewId })
    .from(reviews)
    .where(
      and(eq(reviews.tenantId, w.tenantA.id), eq(reviews.siteType, "google"), inArray(reviews.locationId, locationIds)),
    );
  return new Set(rows.map((r) => r.id));
}

/** review.created events handed off, one per distinct review (a page stored again must not announce it twice). */
const createdEvents = (events: EventEnvelope[]) => {
  const ids = events.filter((e) => e.type === "review.created").map((e) => (e.data as { reviewId: string }).reviewId);
  expect(new Set(ids).size).toBe(ids.length);
  return ids.length;
};

const jobsFor = (conns: { integrationId: string }[], startedAt: string): ReviewSyncJob[] =>
  conns.map((c) => ({ tenantId: w.tenantA.id, integrationId: c.integrationId, cursor: null, since: null, startedAt }));

describe("Google sync of many locations under Google's quota", () => {
  it("stores every review of every location and never sends more than 300 requests in a minute", async () => {
    const google = new GoogleStandIn(Date.parse("2026-06-01T00:00:00Z"), { servePageSize: SERVED_PAGE, latencyMs: 20 });
    const conns = await connectLocations("acct-a", LOCATIONS);
    const expected = new Set(
      conns.flatMap((c) =>
        google.addProfile("acct-a", c.googleLocationId, REVIEWS_PER_LOCATION).map((r) => r.reviewId),
      ),
    );

    const wall = Date.now();
    const run = await drain(google, jobsFor(conns, new Date(google.now).toISOString()));
    const figures = { ...google.figures(), wallMs: Date.now() - wall, deliveries: run.deliveries };
    console.log(
      `google sync (quota 300/min): ${JSON.stringify({ locations: LOCATIONS, reviews: expected.size, ...figures })}`,
    );

    expect(run.dropped).toBe(0);
    const stored = await storedIds(conns.map((c) => c.locationId));
    expect([...expected].filter((id) => !stored.has(id))).toEqual([]);
    expect(createdEvents(run.events)).toBe(LOCATIONS * REVIEWS_PER_LOCATION);
    expect(stored.size).toBe(LOCATIONS * REVIEWS_PER_LOCATION);
    expect(figures.requests).toBeGreaterThan(300);
    expect(figures.maxRequestsPerMinute).toBeLessThanOrEqual(300);
    expect(figures.rateLimited).toBe(0);
    const rows = await shardOf(w.tenantA)
      .select()
      .from(integrations)
      .where(
        inArray(
          integrations.id,
          conns.map((c) => c.integrationId),
        ),
      );
    expect(rows.map((r) => r.lastSyncStatus)).toEqual(rows.map(() => "ok"));
  }, 120_000);

  it("when the project's quota is shared (Google answers 429 above 120/min), backs off and still stores every review", async () => {
    // an hour after the first run, so its grants are out of the limiter's window
    const google = new GoogleStandIn(Date.parse("2026-06-01T02:00:00Z"), {
      servePageSize: SERVED_PAGE,
      latencyMs: 20,
      requestsPerMinute: 120,
    });
    const conns = await connectLocations("acct-b", LOCATIONS);
    const expected = new Set(
      conns.flatMap((c) =>
        google.addProfile("acct-b", c.googleLocationId, REVIEWS_PER_LOCATION).map((r) => r.reviewId),
      ),
    );

    const wall = Date.now();
    const run = await drain(google, jobsFor(conns, new Date(google.now).toISOString()));
    const figures = { ...google.figures(), wallMs: Date.now() - wall, deliveries: run.deliveries };
    console.log(
      `google sync (Google answers 429 above 120/min): ${JSON.stringify({ locations: LOCATIONS, reviews: expected.size, ...figures })}`,
    );

    expect(run.dropped).toBe(0);
    const stored = await storedIds(conns.map((c) => c.locationId));
    expect([...expected].filter((id) => !stored.has(id))).toEqual([]);
    expect(createdEvents(run.events)).toBe(LOCATIONS * REVIEWS_PER_LOCATION);
    expect(figures.rateLimited).toBeGreaterThan(0);
    expect(figures.maxAcceptedPerMinute).toBeLessThanOrEqual(120);
    expect(figures.maxRequestsPerMinute).toBeLessThanOrEqual(300);
    // backing off: the 429s are a small share of the calls, not a hammering
    expect(figures.rateLimited).toBeLessThan(figures.requests * 0.1);
    const rows = await shardOf(w.tenantA)
      .select()
      .from(integrations)
      .where(
        inArray(
          integrations.id,
          conns.map((c) => c.integrationId),
        ),
      );
    expect(rows.map((r) => r.lastSyncStatus)).toEqual(rows.map(() => "ok"));
  }, 120_000);
});

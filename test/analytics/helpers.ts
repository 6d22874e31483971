import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import { reviewResponses, reviews, rollupCells, solicitations } from "../../src/db/schema";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import type { EventEnvelope, EventType } from "../../src/lib/events";
import { newId } from "../../src/lib/ids";
import { db, type World } from "../helpers/seed";

export async function newLocation(
  w: World,
  as: "manager" | "tenantBAdmin" = "manager",
  extra: Record<string, unknown> = {},
) {
  const res = await w.as(as).post("/v1/locations", { name: `Loc ${Math.random().toString(36).slice(2, 7)}`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; brandId: string; name: string };
}

type SolicitationRow = typeof solicitations.$inferInsert;

/** A solicitation row as the sending work would leave it (nothing on this branch writes them). */
export async function seedSolicitation(
  tenantId: string,
  o: Partial<SolicitationRow> & { locationId: string; createdAt: string },
) {
  const id = o.id ?? newId();
  const row: SolicitationRow = {
    id,
    tenantId,
    contactId: `contact-${id}`,
    channel: "email",
    status: "PENDING",
    shortLinkToken: `tok-${id}`,
    updatedAt: o.createdAt,
    ...o,
  };
  await db().insert(solicitations).values(row);
  return row;
}

type ReviewRowInsert = typeof reviews.$inferInsert;

/** A review row with exact timestamps (ingest would stamp createdAt with now). */
export async function seedReview(
  tenantId: string,
  o: Partial<ReviewRowInsert> & { locationId: string; createdAt: string },
) {
  const row: ReviewRowInsert = {
    id: newId(),
    tenantId,
    siteType: "google",
    occurredAt: o.publishedAt ?? o.createdAt,
    updatedAt: o.createdAt,
    ...o,
  };
  await db().insert(reviews).values(row);
  return row;
}

export async function seedPublishedResponse(tenantId: string, reviewId: string, publishedAt: string) {
  await db().insert(reviewResponses).values({
    id: newId(),
    tenantId,
    reviewId,
    text: "Thank you",
    status: "published",
    publishedAt,
    createdAt: publishedAt,
    updatedAt: publishedAt,
  });
}

export const envelope = (
  tenantId: string,
  type: EventType,
  data: Record<string, unknown>,
  id = `evt_${newId()}`,
): EventEnvelope => ({
  id,
  type,
  tenantId,
  occurredAt: new Date().toISOString(),
  data,
});

/** Delivers events through the Worker's EVENTS consumer, as the queue would (with `withEnv`'s settings). */
export async function deliver(events: EventEnvelope[], attempts = 1, withEnv: Env = env as unknown as Env) {
  const ctx = createExecutionContext();
  const batch = createMessageBatch(
    "events",
    events.map((e, i) => ({ id: `m-${e.id}-${attempts}-${i}`, timestamp: new Date(), attempts, body: e })),
  );
  await worker.queue(batch, withEnv, ctx);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages).toEqual([]);
  return result;
}

/** The bookkeeping row of a funnel cell (tenant, location, UTC day): its touches and the last rebuild's. */
export const funnelCell = (tenantId: string, locationId: string, day: string) =>
  db()
    .select()
    .from(rollupCells)
    .where(
      and(
        eq(rollupCells.rollup, "funnel"),
        eq(rollupCells.tenantId, tenantId),
        eq(rollupCells.locationId, locationId),
        eq(rollupCells.day, day),
      ),
    )
    .get();

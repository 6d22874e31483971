import { env } from "cloudflare:workers";
import { asc, inArray } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it } from "vitest";
import { analyticsFunnelDaily, analyticsResponseDaily, analyticsReviewDaily } from "../../src/db/schema";
import { shardDb } from "../../src/db/shards";
import type { Env } from "../../src/env";
import type { EventEnvelope } from "../../src/lib/events";
import { applyEventsToRollups, CELLS_PER_BATCH } from "../../src/modules/analytics/events";
import {
  funnelStatements,
  recomputeAll,
  responseStatements,
  reviewStatements,
} from "../../src/modules/analytics/rollups";
import { countingD1 } from "../helpers/d1-counter";
import { createWorld, db, type World } from "../helpers/seed";
import { envelope, newLocation, seedPublishedResponse, seedReview, seedSolicitation } from "./helpers";

/**
 * The EVENTS consumer rebuilds every rollup cell (tenant, location, day) a queue batch touches, a
 * few dozen cells to a D1 batch. These tests pin that: the rows equal a rebuild from source rows,
 * the round trips grow with the cells only by their batches, and each cell is an index search,
 * not a table scan.
 */
let w: World;
const events: EventEnvelope[] = [];
const days = ["2026-05-01", "2026-05-02", "2026-05-03"];
const at = (day: string, hh: string) => `${day}T${hh}:00:00.000Z`;

const snapshot = async () => {
  const tenants = [w.tenantA.id, w.tenantB.id];
  const order = (t: typeof analyticsFunnelDaily | typeof analyticsReviewDaily | typeof analyticsResponseDaily) => [
    asc(t.tenantId),
    asc(t.day),
    asc(t.locationId),
  ];
  return {
    funnel: await db()
      .select()
      .from(analyticsFunnelDaily)
      .where(inArray(analyticsFunnelDaily.tenantId, tenants))
      .orderBy(...order(analyticsFunnelDaily), asc(analyticsFunnelDaily.channel)),
    reviews: await db()
      .select()
      .from(analyticsReviewDaily)
      .where(inArray(analyticsReviewDaily.tenantId, tenants))
      .orderBy(...order(analyticsReviewDaily), asc(analyticsReviewDaily.siteType)),
    responses: await db()
      .select()
      .from(analyticsResponseDaily)
      .where(inArray(analyticsResponseDaily.tenantId, tenants))
      .orderBy(...order(analyticsResponseDaily)),
  };
};

beforeAll(async () => {
  w = await createWorld();
  // different SLA windows per tenant: the batch's due dates must follow each review's own tenant
  expect(
    (
      await w
        .as("tenantAdmin")
        .post("/v1/settings/sla-rules", { name: "A day", filter: {}, responseWindowHours: 24, escalateAfterHours: 48 })
    ).status,
  ).toBe(201);
  expect(
    (
      await w
        .as("tenantBAdmin")
        .post("/v1/settings/sla-rules", { name: "An hour", filter: {}, responseWindowHours: 1, escalateAfterHours: 2 })
    ).status,
  ).toBe(201);
  const locations = [
    ...(await Promise.all([newLocation(w), newLocation(w), newLocation(w)])).map((l) => ({
      tenantId: w.tenantA.id,
      id: l.id,
    })),
    ...(await Promise.all([newLocation(w, "tenantBAdmin"), newLocation(w, "tenantBAdmin")])).map((l) => ({
      tenantId: w.tenantB.id,
      id: l.id,
    })),
  ];
  let n = 0;
  let k = 0;
  for (const loc of locations) {
    for (const day of days) {
      for (const channel of ["email", "sms"] as const) {
        const s = await seedSolicitation(loc.tenantId, {
          locationId: loc.id,
          createdAt: at(day, "09"),
          channel,
          status: n % 3 ? "SENT" : "DELIVERED",
          sentAt: at(day, "09"),
          clickedAt: n % 2 ? at(day, "10") : null,
        });
        events.push(envelope(loc.tenantId, "solicitation.clicked", { solicitationId: s.id }));
        n++;
      }
      const r = await seedReview(loc.tenantId, {
        locationId: loc.id,
        rating: 1 + (k % 5),
        sentiment: "positive",
        createdAt: at(day, "08"),
        status: k % 2 ? "responded" : "new",
      });
      // published after 3 hours: met under tenant A's day, missed under tenant B's hour
      if (k++ % 2) await seedPublishedResponse(loc.tenantId, r.id!, at(day, "11"));
      events.push(
        envelope(loc.tenantId, "review.created", { reviewId: r.id }),
        envelope(loc.tenantId, "response.published", { reviewId: r.id }),
      );
    }
  }
});

/** Shard 0 (the tenants' shard in this file) through a counting binding. */
const countedShard = (d1: D1Database) => shardDb({ ...(env as unknown as Env), SHARD_0: d1 }, 0);

describe("rollups of an event batch", () => {
  it("rebuild every touched cell of both tenants, CELLS_PER_BATCH to a D1 batch, with the same rows as a rebuild from source", async () => {
    const counted = countingD1();
    await applyEventsToRollups(events, env as unknown as Env, countedShard(counted.DB));
    // the solicitations and the reviews the events name, marking the cells dirty and picking the due
    // ones, the tenants' SLA rules, then the 45 cells' batches
    expect(counted.roundTrips()).toBe(4 + Math.ceil(45 / CELLS_PER_BATCH));
    const fromEvents = await snapshot();
    expect(fromEvents.funnel).toHaveLength(5 * 3 * 2);
    expect(fromEvents.reviews).toHaveLength(5 * 3);
    expect(fromEvents.responses).toHaveLength(5 * 3);
    const bRow = fromEvents.responses.find((r) => r.tenantId === w.tenantB.id && r.responded === 1)!;
    const aRow = fromEvents.responses.find((r) => r.tenantId === w.tenantA.id && r.responded === 1)!;
    expect([aRow.slaMet, aRow.slaMissed, bRow.slaMet, bRow.slaMissed]).toEqual([1, 0, 0, 1]);

    await db()
      .delete(analyticsFunnelDaily)
      .where(inArray(analyticsFunnelDaily.tenantId, [w.tenantA.id, w.tenantB.id]));
    await db()
      .delete(analyticsReviewDaily)
      .where(inArray(analyticsReviewDaily.tenantId, [w.tenantA.id, w.tenantB.id]));
    await db()
      .delete(analyticsResponseDaily)
      .where(inArray(analyticsResponseDaily.tenantId, [w.tenantA.id, w.tenantB.id]));
    for (const tenantId of [w.tenantA.id, w.tenantB.id])
      await recomputeAll(db(), { tenantId, from: days[0]!, to: days[2]! });
    expect(await snapshot()).toEqual(fromEvents);
  });

  it("costs the same round trips for one event as for the whole batch", async () => {
    const counted = countingD1();
    await applyEventsToRollups(events.slice(0, 1), env as unknown as Env, countedShard(counted.DB));
    expect(counted.roundTrips()).toBe(3); // the solicitation, the dirty mark, then the batch (no review, no SLA read)
  });

  it("ignores an id another tenant's event names", async () => {
    const before = await snapshot();
    await db()
      .delete(analyticsFunnelDaily)
      .where(inArray(analyticsFunnelDaily.tenantId, [w.tenantA.id]));
    const aSolicitation = events.find((e) => e.tenantId === w.tenantA.id && e.type === "solicitation.clicked")!;
    await applyEventsToRollups(
      [envelope(w.tenantB.id, "solicitation.clicked", { solicitationId: aSolicitation.data.solicitationId })],
      env as unknown as Env,
      db(),
    );
    expect((await snapshot()).funnel.filter((r) => r.tenantId === w.tenantA.id)).toEqual([]);
    await applyEventsToRollups([aSolicitation], env as unknown as Env, db());
    // its own tenant's event rebuilds the cell: the first location's first day
    const rebuilt = (await snapshot()).funnel.filter((r) => r.tenantId === w.tenantA.id);
    expect(rebuilt).toHaveLength(2);
    expect(rebuilt).toEqual(
      before.funnel.filter(
        (r) => r.tenantId === w.tenantA.id && r.day === days[0] && r.locationId === rebuilt[0]!.locationId,
      ),
    );
  });

  it("searches the source by index for each cell, never scans it", async () => {
    const cells = [{ tenantId: w.tenantA.id, locationId: "loc", day: days[0]! }];
    const inserts = [
      funnelStatements(db(), cells)[1]!,
      reviewStatements(db(), cells)[1]!,
      (await responseStatements(db(), cells))[1]!,
    ];
    for (const insert of inserts) {
      const { sql, params } = new SQLiteAsyncDialect().sqlToQuery(insert);
      const plan = (
        await env.DB.prepare(`explain query plan ${sql}`)
          .bind(...params)
          .all<{ detail: string }>()
      ).results.map((r) => r.detail);
      expect(
        plan.some((d) =>
          /^SEARCH (solicitations|reviews) USING INDEX \w+ \(tenant_id=\? AND location_id=\? AND \w+>\? AND \w+<\?\)/.test(
            d,
          ),
        ),
        plan.join("\n"),
      ).toBe(true);
      expect(
        plan.some((d) => /^SCAN (solicitations|reviews)/.test(d)),
        plan.join("\n"),
      ).toBe(false);
    }
  });
});

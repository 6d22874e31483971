import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { analyticsFunnelDaily, rollupCells } from "../../src/db/schema";
import type { Env } from "../../src/env";
import { applyEventsToRollups, flushDirtyCells } from "../../src/modules/analytics/events";
import { createWorld, db, type World } from "../helpers/seed";
import { envelope, funnelCell, newLocation, seedSolicitation } from "./helpers";

/**
 * A hot rollup cell is rebuilt at most once per ROLLUP_REBUILD_SECONDS: the batches in between only
 * mark it dirty, and the first batch (of any tenant) after the interval, or the 5-minute sweep,
 * rebuilds it. The other tests run with the interval at 0 (vitest.config.mts).
 */
// the delayed rebuilds these batches schedule are kept here, not sent (test/analytics/delayed-rebuild.test.ts covers them)
const slow = { ...env, ROLLUP_REBUILD_SECONDS: "60", EVENTS: { send: async () => {} } } as unknown as Env;
const day = "2026-06-01";
let w: World;
let locA: string;
let locB: string;

beforeAll(async () => {
  w = await createWorld();
  locA = (await newLocation(w)).id;
  locB = (await newLocation(w, "tenantBAdmin")).id;
});

/** A solicitation of the tenant at the location on `day`, and its solicitation.created event. */
async function created(tenantId: string, locationId: string) {
  const s = await seedSolicitation(tenantId, { locationId, createdAt: `${day}T10:00:00.000Z` });
  return envelope(tenantId, "solicitation.created", { solicitationId: s.id });
}
const requested = async (tenantId: string, locationId: string) =>
  (
    await db()
      .select()
      .from(analyticsFunnelDaily)
      .where(
        and(
          eq(analyticsFunnelDaily.tenantId, tenantId),
          eq(analyticsFunnelDaily.locationId, locationId),
          eq(analyticsFunnelDaily.day, day),
        ),
      )
  ).reduce((n, r) => n + r.requested, 0);
const cell = (tenantId: string, locationId: string) => funnelCell(tenantId, locationId, day);

describe("rollup cells rebuilt at most once per interval", () => {
  it("rebuilds a new cell at once, then only marks it dirty until the interval has passed; a later batch of another tenant flushes it", async () => {
    await applyEventsToRollups([await created(w.tenantA.id, locA)], slow, db());
    expect(await requested(w.tenantA.id, locA)).toBe(1);
    expect(await cell(w.tenantA.id, locA)).toMatchObject({ version: 1, builtVersion: 1 });

    await applyEventsToRollups([await created(w.tenantA.id, locA)], slow, db());
    await applyEventsToRollups([await created(w.tenantA.id, locA)], slow, db());
    expect(await requested(w.tenantA.id, locA)).toBe(1);
    expect(await cell(w.tenantA.id, locA)).toMatchObject({ version: 3, builtVersion: 1 });

    // the interval passes; the next batch is another tenant's, and it rebuilds A's cell too
    await db()
      .update(rollupCells)
      .set({ builtAt: "2000-01-01T00:00:00.000Z" })
      .where(and(eq(rollupCells.tenantId, w.tenantA.id), eq(rollupCells.locationId, locA)));
    await applyEventsToRollups([await created(w.tenantB.id, locB)], slow, db());
    expect(await requested(w.tenantA.id, locA)).toBe(3);
    expect(await requested(w.tenantB.id, locB)).toBe(1);
    expect(await cell(w.tenantA.id, locA)).toMatchObject({ version: 3, builtVersion: 3 });
  });

  it("the sweep rebuilds every dirty cell, however recently built, and leaves clean ones alone", async () => {
    await applyEventsToRollups([await created(w.tenantB.id, locB)], slow, db());
    expect(await requested(w.tenantB.id, locB)).toBe(1);
    expect(await cell(w.tenantB.id, locB)).toMatchObject({ version: 2, builtVersion: 1 });
    expect(await flushDirtyCells(env, db())).toBeGreaterThanOrEqual(1);
    expect(await requested(w.tenantB.id, locB)).toBe(2);
    expect(await cell(w.tenantB.id, locB)).toMatchObject({ version: 2, builtVersion: 2 });
    expect(await flushDirtyCells(env, db())).toBe(0);
  });

  it("finds the due cells through the index of dirty cells, never by scanning every cell", async () => {
    const plan = (
      await env.DB.prepare(
        "explain query plan select rollup, tenant_id as tenantId, location_id as locationId, day from rollup_cells where version > built_version and (built_at is null or built_at <= ?) order by built_at limit ?",
      )
        .bind(new Date().toISOString(), 200)
        .all<{ detail: string }>()
    ).results.map((r) => r.detail);
    expect(plan.join("\n")).toMatch(/USING INDEX rollup_cells_dirty_idx/);
    expect(plan.join("\n")).not.toMatch(/SCAN rollup_cells$/m);
  });

  it("with the interval at 0 every batch rebuilds what it touched", async () => {
    const loc = (await newLocation(w)).id;
    for (let i = 1; i <= 3; i++) {
      await applyEventsToRollups(
        [await created(w.tenantA.id, loc)],
        { ...env, ROLLUP_REBUILD_SECONDS: "0" } as Env,
        db(),
      );
      expect(await requested(w.tenantA.id, loc)).toBe(i);
    }
  });
});

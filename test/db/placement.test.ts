import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { CRONS } from "../../src/background/cron";
import { shardSizesSweep } from "../../src/background/shards";
import { shardSizes, tenants } from "../../src/db/schema";
import { recordShardSizes } from "../../src/db/shard-sizes";
import { AGENCY_SLACK_BYTES, controlDb, placeTenant, shardD1, tenantShard } from "../../src/db/shards";
import { SWEEPS } from "../../src/wiring";
import { moveInline } from "../admin/tenant-move-helpers";
import { client } from "../helpers/http";
import { seedAgency, seedTenant, seedUser } from "../helpers/seed";

const GB = 1000 ** 3;
const control = () => controlDb(env);
const recorded = async () => Object.fromEntries((await control().select().from(shardSizes)).map((r) => [r.shard, r]));
const setSizes = async (sizes: Record<number, number>) => {
  await control().delete(shardSizes);
  const rows = Object.entries(sizes).map(([shard, bytes]) => ({
    shard: Number(shard),
    bytes,
    measuredAt: new Date().toISOString(),
  }));
  if (rows.length) await control().insert(shardSizes).values(rows);
};
/** What D1 reports for the shard right now. */
const sizeNow = async (shard: number) =>
  (await shardD1(env, shard).prepare("select 1").run()).meta.size_after as number;

afterEach(async () => {
  await control().delete(shardSizes);
});

describe("shard sizes", () => {
  it("records each shard's size as D1 reports it (meta.size_after)", async () => {
    const now = new Date("2026-11-25T03:17:00.000Z");
    const sizes = await recordShardSizes(env, now);
    expect([...sizes.keys()]).toEqual([0, 1]);
    const rows = await recorded();
    expect(rows[1]).toEqual({ shard: 1, bytes: await sizeNow(1), measuredAt: now.toISOString() });
    expect(rows[0]!.bytes).toBe(sizes.get(0));
    expect(rows[0]!.bytes).toBeGreaterThan(0);
    // measured again: the rows are updated, not added
    await recordShardSizes(env, new Date("2026-11-26T03:17:00.000Z"));
    expect(Object.values(await recorded()).map((r) => [r.shard, r.measuredAt])).toEqual([
      [0, "2026-11-26T03:17:00.000Z"],
      [1, "2026-11-26T03:17:00.000Z"],
    ]);
  });

  it("is measured by a daily sweep, once for all shards", async () => {
    expect(SWEEPS[CRONS.daily]).toContain(shardSizesSweep);
    const now = new Date("2026-11-27T03:17:00.000Z");
    await shardSizesSweep.run(env, now);
    const rows = await recorded();
    expect(Object.keys(rows)).toEqual(["0", "1"]);
    expect(rows[1]).toEqual({ shard: 1, bytes: await sizeNow(1), measuredAt: now.toISOString() });
  });

  it("is measured again after a tenant move", async () => {
    const t = await seedTenant({ shard: 0 });
    const before = new Date().toISOString();
    const admin = await seedUser({ grants: [{ role: "platform_admin", scopeType: "platform" }] });
    const report = await moveInline(t.id, 1, admin.id);
    expect(report).toMatchObject({ from: 0, to: 1, state: "succeeded", sourceDeleted: true });
    const rows = await recorded();
    expect(Object.keys(rows)).toEqual(["0", "1"]);
    expect(rows[1]!.measuredAt >= before).toBe(true);
    expect(rows[1]!.bytes).toBe(await sizeNow(1));
  });
});

describe("placement by size", () => {
  it("picks the shard with the most room under the 10 GB cap, whatever the tenant counts say", async () => {
    const rows = await control().select({ shard: tenants.shard }).from(tenants);
    const counts = [0, 1].map((s) => rows.filter((r) => r.shard === s).length);
    // the counts alone would pick the shard with fewer tenants; the recorded sizes say otherwise
    const byCount = counts[1]! < counts[0]! ? 1 : 0;
    const other = 1 - byCount;
    await setSizes({ [byCount]: 8 * GB, [other]: 3 * GB });
    const fresh = await seedAgency();
    expect(await placeTenant(env, fresh.id)).toBe(other);
    await setSizes({ [byCount]: 1 * GB, [other]: 3 * GB });
    expect(await placeTenant(env, fresh.id)).toBe(byCount);
  });

  it("keeps an agency's tenants together unless its shard has more than the slack less room", async () => {
    const agency = await seedAgency();
    await seedTenant({ agencyId: agency.id, shard: 1 });
    await setSizes({ 0: 4 * GB, 1: 4 * GB + AGENCY_SLACK_BYTES });
    expect(await placeTenant(env, agency.id)).toBe(1);
    await setSizes({ 0: 4 * GB, 1: 4 * GB + AGENCY_SLACK_BYTES + 1 });
    expect(await placeTenant(env, agency.id)).toBe(0);
  });

  it("counts a shard with no record yet as empty, and falls back to tenant counts when nothing is recorded", async () => {
    const fresh = await seedAgency();
    await setSizes({ 0: 2 * GB });
    expect(await placeTenant(env, fresh.id)).toBe(1);
    await setSizes({ 1: 2 * GB });
    expect(await placeTenant(env, fresh.id)).toBe(0);
    await setSizes({});
    const rows = await control().select({ shard: tenants.shard }).from(tenants);
    const [n0, n1] = [0, 1].map((s) => rows.filter((r) => r.shard === s).length);
    expect(await placeTenant(env, fresh.id)).toBe(n1! < n0! ? 1 : 0);
  });

  it("POST /agency/tenants creates the tenant on the shard with the most room", async () => {
    const admin = client((await seedUser({ grants: [{ role: "platform_admin", scopeType: "platform" }] })).token);
    for (const [sizes, expected] of [
      [{ 0: 9 * GB, 1: 1 * GB }, 1],
      [{ 0: 1 * GB, 1: 9 * GB }, 0],
    ] as const) {
      await setSizes(sizes);
      // a new agency each time, so the first tenant does not pull the second onto its shard
      const res = await admin.post("/agency/tenants", {
        name: "Sized Co",
        slug: `sized-${expected}-${Date.now()}`,
        plan: "starter",
        agencyId: (await seedAgency()).id,
      });
      expect(res.status).toBe(201);
      expect(await tenantShard(env, res.body.id)).toBe(expected);
    }
  });
});

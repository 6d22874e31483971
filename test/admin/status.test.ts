import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { CRONS, runSweeps, type Sweeps } from "../../src/background/cron";
import { deadLetters, integrations, shardSizes, solicitations, sweepRuns, tenantMoves } from "../../src/db/schema";
import { controlDb, shardDb } from "../../src/db/shards";
import worker from "../../src/index";
import { newId } from "../../src/lib/ids";
import { SWEEPS } from "../../src/wiring";
import { client } from "../helpers/http";
import { seedTenant, seedUser } from "../helpers/seed";
import { connect, structured } from "../mcp/helpers";

// GET /admin/status (issue #34): queues, sweeps (recorded by runSweeps), shards, tenant moves and
// provider errors, for platform admins; the same as the MCP tool platform.status.
const control = () => controlDb(env);
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;

beforeEach(async () => {
  await control().delete(sweepRuns);
  await control().delete(deadLetters);
  await control().delete(shardSizes);
});

const platformAdmin = () => seedUser({ grants: [{ role: "platform_admin", scopeType: "platform" }] });

describe("sweeps record their runs", () => {
  const ok = { name: "probe-ok", run: async () => undefined };
  let failNext = true;
  const flaky = {
    name: "probe-flaky",
    run: async () => {
      if (failNext) throw new Error("upstream said no");
    },
  };
  const sweeps: Sweeps = { [CRONS.frequent]: [ok, flaky], [CRONS.daily]: [] };
  const tick = () =>
    runSweeps(sweeps)(createScheduledController({ cron: CRONS.frequent, scheduledTime: Date.now() }), env);
  const row = async (sweep: string) => (await control().select().from(sweepRuns)).find((r) => r.sweep === sweep)!;

  it("keeps each sweep's last start, duration, outcome and error, and when it last succeeded", async () => {
    const before = new Date().toISOString();
    await expect(tick()).rejects.toThrow("one or more sweeps failed");
    const good = await row("probe-ok");
    expect(good).toMatchObject({ cron: CRONS.frequent, outcome: "ok", error: null, lastOkAt: good.startedAt });
    expect(good.startedAt >= before).toBe(true);
    expect(good.durationMs).toBeGreaterThanOrEqual(0);
    expect(await row("probe-flaky")).toMatchObject({
      outcome: "failed",
      error: "Error: upstream said no",
      lastOkAt: null,
    });

    failNext = false;
    await tick();
    const recovered = await row("probe-flaky");
    expect(recovered).toMatchObject({ outcome: "ok", error: null, lastOkAt: recovered.startedAt });

    failNext = true;
    await expect(tick()).rejects.toThrow();
    // a failure keeps the last success
    expect(await row("probe-flaky")).toMatchObject({ outcome: "failed", lastOkAt: recovered.lastOkAt });
    expect(await control().select().from(sweepRuns)).toHaveLength(2);
  });

  it("records every sweep of the frequent cron when the Worker's trigger fires", async () => {
    await worker.scheduled!(createScheduledController({ cron: CRONS.frequent, scheduledTime: Date.now() }), env);
    const rows = await control().select().from(sweepRuns);
    expect(rows.map((r) => r.sweep).sort()).toEqual([...new Set(SWEEPS[CRONS.frequent].map((s) => s.name))].sort());
    expect(rows.every((r) => r.cron === CRONS.frequent && r.outcome === "ok")).toBe(true);
  });
});

describe("GET /admin/status", () => {
  it("reports queues, sweeps, shards, moves in progress and provider errors", async () => {
    const admin = await platformAdmin();
    const onShard0 = await seedTenant({ shard: 0 });
    const onShard1 = await seedTenant({ shard: 1 });
    // dead letters: two sends and a webhook in the last 24 h, one older send, one of an unknown shape
    await control()
      .insert(deadLetters)
      .values([
        ...[1, 2].map((h) => ({
          id: newId(),
          queue: "sends",
          messageId: newId(),
          body: { solicitationId: "s" },
          attempts: 5,
          createdAt: ago(h * HOUR),
        })),
        { id: newId(), queue: "webhooks", messageId: newId(), body: {}, attempts: 12, createdAt: ago(HOUR) },
        { id: newId(), queue: "sends", messageId: newId(), body: {}, attempts: 5, createdAt: ago(25 * HOUR) },
        { id: newId(), queue: "dead-letter", messageId: newId(), body: {}, attempts: 1, createdAt: ago(MIN) },
      ]);
    // sweeps: a frequent one that ran 3 minutes ago, one that stopped 20 minutes ago and failed, a daily one
    await control()
      .insert(sweepRuns)
      .values([
        {
          cron: CRONS.frequent,
          sweep: "sla-escalation",
          startedAt: ago(3 * MIN),
          durationMs: 40,
          outcome: "ok",
          error: null,
          lastOkAt: ago(3 * MIN),
        },
        {
          cron: CRONS.frequent,
          sweep: "stale-pending",
          startedAt: ago(20 * MIN),
          durationMs: 1200,
          outcome: "failed",
          error: "Error: D1_ERROR",
          lastOkAt: ago(25 * MIN),
        },
        {
          cron: CRONS.daily,
          sweep: "shard-sizes",
          startedAt: ago(10 * HOUR),
          durationMs: 300,
          outcome: "ok",
          error: null,
          lastOkAt: ago(10 * HOUR),
        },
      ]);
    await control()
      .insert(shardSizes)
      .values({ shard: 0, bytes: 2_500_000_000, measuredAt: ago(HOUR) });
    // a move in progress and a finished one
    const move = {
      tenantId: onShard0.id,
      fromShard: 0,
      toShard: 1,
      chunkRows: 500,
      sliceChunks: 40,
      settleSeconds: 1,
      createdAt: ago(2 * MIN),
      updatedAt: ago(MIN),
    };
    await control()
      .insert(tenantMoves)
      .values([
        {
          ...move,
          id: "move_live",
          state: "copying",
          tables: [
            { table: "contacts", copied: 700, rows: null, checksum: null },
            { table: "reviews", copied: 50, rows: null, checksum: null },
          ],
        },
        { ...move, id: "move_done", tenantId: onShard1.id, state: "succeeded", finishedAt: ago(MIN) },
      ]);
    // send errors on both shards: two SendGrid refusals (one still retrying), a provider-reported failure, one older than an hour
    const now = ago(0);
    const sol = (tenantId: string, o: Partial<typeof solicitations.$inferInsert>) => ({
      id: newId(),
      tenantId,
      locationId: "loc",
      contactId: "con",
      channel: "email" as const,
      status: "FAILED" as const,
      shortLinkToken: newId(),
      createdAt: ago(10 * MIN),
      updatedAt: ago(5 * MIN),
      ...o,
    });
    await shardDb(env, 0)
      .insert(solicitations)
      .values([
        sol(onShard0.id, { failureReason: "sendgrid: 401 The provided authorization grant is invalid" }),
        sol(onShard0.id, { failureReason: "sendgrid: 503 try later", status: "PENDING", updatedAt: ago(MIN) }),
        sol(onShard0.id, { failureReason: "sendgrid: 401 old", updatedAt: ago(2 * HOUR) }),
        sol(onShard0.id, { status: "SENT", provider: "sendgrid" }),
      ]);
    await shardDb(env, 1)
      .insert(solicitations)
      .values(
        sol(onShard1.id, {
          provider: "twilio",
          failureReason: "30003 Unreachable destination handset",
          updatedAt: now,
        }),
      );
    // sync errors: a rate-limited Google connection; a Yelp one that failed yesterday does not count
    const integration = (tenantId: string, connectorType: string, o: Partial<typeof integrations.$inferInsert>) => ({
      id: newId(),
      tenantId,
      connectorType,
      name: connectorType,
      createdAt: ago(HOUR),
      updatedAt: ago(2 * MIN),
      ...o,
    });
    await shardDb(env, 1)
      .insert(integrations)
      .values([
        integration(onShard1.id, "google", {
          lastSyncStatus: "rate_limited",
          lastSyncError: "google: 429 quota exceeded",
        }),
        integration(onShard1.id, "yelp", {
          lastSyncStatus: "error",
          lastSyncError: "yelp: 401",
          updatedAt: ago(24 * HOUR),
        }),
      ]);

    const res = await client(admin.token).get("/admin/status");
    expect(res.status).toBe(200);
    const s = res.body;
    expect(Date.parse(s.generatedAt)).toBeGreaterThan(Date.now() - MIN);

    const queue = (name: string) => s.queues.find((q: { queue: string }) => q.queue === name);
    expect(s.queues.map((q: { queue: string }) => q.queue)).toEqual([
      "sends",
      "review-sync",
      "events",
      "webhooks",
      "jobs",
      "clicks",
      "dead-letter",
    ]);
    expect([
      queue("sends").deadLetters24h,
      queue("webhooks").deadLetters24h,
      queue("events").deadLetters24h,
      queue("dead-letter").deadLetters24h,
    ]).toEqual([2, 1, 0, 1]);
    // the dead-letter queue has no producer binding: its backlog is not known
    expect([queue("dead-letter").waiting, queue("dead-letter").oldestWaitingAt]).toEqual([null, null]);
    for (const q of s.queues) expect(q.waiting === null || Number.isInteger(q.waiting)).toBe(true);

    // the frequent cron's sweeps first, then the daily one's; by name within a cron
    expect(
      s.sweeps.map((w: { sweep: string; outcome: string; stale: boolean }) => [w.sweep, w.outcome, w.stale]),
    ).toEqual([
      ["sla-escalation", "ok", false],
      ["stale-pending", "failed", true],
      ["shard-sizes", "ok", false],
    ]);
    expect(s.sweeps[1]).toMatchObject({ cron: CRONS.frequent, durationMs: 1200, error: "Error: D1_ERROR" });

    const tenantsOn = async (shard: number) =>
      (await env.DB.prepare("select count(*) as n from tenants where shard = ?").bind(shard).first<{ n: number }>())!.n;
    expect(s.shards).toEqual([
      {
        shard: 0,
        bytes: 2_500_000_000,
        measuredAt: expect.any(String),
        tenants: await tenantsOn(0),
        fullness: 0.25,
        roomBytes: 7_500_000_000,
      },
      // not measured since it was added
      { shard: 1, bytes: null, measuredAt: null, tenants: await tenantsOn(1), fullness: null, roomBytes: null },
    ]);
    expect(s.shards[1].tenants).toBeGreaterThanOrEqual(1);

    expect(s.tenantMoves).toEqual([
      {
        id: "move_live",
        tenantId: onShard0.id,
        from: 0,
        to: 1,
        state: "copying",
        rows: 750,
        startedAt: move.createdAt,
        updatedAt: move.updatedAt,
      },
    ]);

    expect(s.providers).toEqual([
      {
        provider: "google",
        sendErrors1h: 0,
        syncErrors1h: 1,
        lastErrorAt: expect.any(String),
        lastError: "google: 429 quota exceeded",
      },
      {
        provider: "sendgrid",
        sendErrors1h: 2,
        syncErrors1h: 0,
        lastErrorAt: expect.any(String),
        lastError: "sendgrid: 503 try later",
      },
      {
        provider: "twilio",
        sendErrors1h: 1,
        syncErrors1h: 0,
        lastErrorAt: now,
        lastError: "30003 Unreachable destination handset",
      },
    ]);
  });

  it("GET /admin/dead-letters pages newest first by cursor, per queue", async () => {
    const admin = await platformAdmin();
    const rows = [1, 2, 3].map((m) => ({
      id: newId(),
      queue: "sends",
      messageId: `paged-${m}`,
      body: { solicitationId: "s" },
      attempts: 5,
      createdAt: ago(m * MIN),
    }));
    await control()
      .insert(deadLetters)
      .values([...rows, { id: newId(), queue: "jobs", messageId: "other", body: {}, attempts: 1, createdAt: ago(0) }]);
    const as = client(admin.token);
    const first = await as.get("/admin/dead-letters?queue=sends&limit=2");
    expect(first.body.data.map((d: { messageId: string }) => d.messageId)).toEqual(["paged-1", "paged-2"]);
    expect(first.body).toMatchObject({ total: 3, pageInfo: { hasNextPage: true } });
    const rest = await as.get(`/admin/dead-letters?queue=sends&limit=2&cursor=${first.body.pageInfo.endCursor}`);
    expect(rest.body.data.map((d: { messageId: string }) => d.messageId)).toEqual(["paged-3"]);
    expect(rest.body.pageInfo.hasNextPage).toBe(false);
  });

  it("is for platform admins only", async () => {
    const tenant = await seedTenant();
    const tenantAdmin = await seedUser({
      grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: tenant.id }],
      tenantId: tenant.id,
    });
    expect((await client(tenantAdmin.token, tenant.id).get("/admin/status")).status).toBe(403);
    expect((await client().get("/admin/status")).status).toBe(401);
  });
});

describe("MCP tool platform.status", () => {
  it("is listed and answers for a platform admin, and is neither listed nor callable for a tenant admin", async () => {
    const tenant = await seedTenant();
    const admin = await platformAdmin();
    await control()
      .insert(shardSizes)
      .values({ shard: 1, bytes: 1_000_000_000, measuredAt: ago(HOUR) });
    const { client: asAdmin } = await connect({ token: admin.token, headers: { "x-tenant-id": tenant.id } });
    expect((await asAdmin.listTools()).tools.map((t) => t.name)).toContain("platform.status");
    const result = await asAdmin.callTool({ name: "platform.status", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(structured(result).shards[1]).toMatchObject({ shard: 1, bytes: 1_000_000_000, fullness: 0.1 });

    const tenantAdmin = await seedUser({
      grants: [{ role: "tenant_admin", scopeType: "tenant", scopeId: tenant.id }],
      tenantId: tenant.id,
    });
    const { client: asTenant } = await connect({ token: tenantAdmin.token, headers: { "x-tenant-id": tenant.id } });
    expect((await asTenant.listTools()).tools.map((t) => t.name)).not.toContain("platform.status");
    const refused = await asTenant.callTool({ name: "platform.status", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("platform.status needs a platform_admin's session");
  });
});

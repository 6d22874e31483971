import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { contactCounts, tenantMoves, tenants } from "../../src/db/schema";
import { controlDb, mirrorTenant, shardD1, shardDb } from "../../src/db/shards";
import { addChunk, copyRows, readChunk, tenantTables } from "../../src/db/tenant-move";
import type { Env } from "../../src/env";
import { SYSTEM_META } from "../../src/lib/context";
import { newId } from "../../src/lib/ids";
import {
  handleMoveMessage,
  MOVE_ATTEMPTS,
  type TenantMoveMessage,
  tenantMovesWatchdogSweep,
} from "../../src/modules/admin/background";
import { type MoveSettings, startTenantMove } from "../../src/modules/admin/tenant-move.service";
import { createWorld, type World } from "../helpers/seed";
import { rowsOn, seedContacts, seedSolicitations, tableRows } from "./tenant-move-helpers";

/**
 * The move job driven message by message (no queue in between): the JOBS producer is replaced by a
 * list, so a test decides which message is delivered when, and how often.
 */
interface Sent {
  body: TenantMoveMessage;
  delaySeconds: number;
}

function harness() {
  const sent: Sent[] = [];
  const jobsEnv = {
    ...env,
    JOBS: {
      send: async (body: TenantMoveMessage, o?: { delaySeconds?: number }) =>
        void sent.push({ body, delaySeconds: o?.delaySeconds ?? 0 }),
    },
  } as unknown as Env;
  return { sent, env: jobsEnv };
}

/** A delivery of a message: what the consumer did with it. */
async function deliver(e: Env, body: TenantMoveMessage, attempts = 1) {
  const outcome = { acked: false, retryDelay: null as number | null };
  const message = {
    id: `m-${newId()}`,
    timestamp: new Date(),
    body,
    attempts,
    ack: () => {
      outcome.acked = true;
    },
    retry: (o?: { delaySeconds?: number }) => {
      outcome.retryDelay = o?.delaySeconds ?? 0;
    },
  } as unknown as Message<unknown>;
  await handleMoveMessage(e, message);
  return outcome;
}

const moveRow = (id: string) => controlDb(env).select().from(tenantMoves).where(eq(tenantMoves.id, id)).get();
const directoryRow = (tenantId: string) =>
  controlDb(env)
    .select({ shard: tenants.shard, movingSince: tenants.movingSince })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .get();

async function start(w: World, e: Env, settings: Partial<MoveSettings>, to = 1) {
  const ctx = {
    db: controlDb(e),
    control: controlDb(e),
    env: e,
    actor: { type: "user" as const, userId: w.users.platformAdmin.id, via: "platform" as const },
    meta: SYSTEM_META,
    defer: () => {},
  };
  return startTenantMove(ctx, w.tenantA.id, to, { settleSeconds: 0, ...settings });
}

/** Count and chunked checksum of one table, computed here independently of the job's bookkeeping. */
async function checksum(shard: number, table: string, tenantId: string, chunk: number) {
  const d1 = shardD1(env, shard);
  const t = (await tenantTables(d1)).find((x) => x.name === table)!;
  let after: unknown[] | null = null;
  let digest = "";
  let rows = 0;
  for (;;) {
    const page = await readChunk(d1, t, tenantId, after, chunk);
    if (!page.length) break;
    digest = await addChunk(t, digest, page);
    rows += page.length;
    after = t.primaryKey.map((c) => page[page.length - 1]![c]);
  }
  return { rows, checksum: digest };
}

async function seededWorld(contacts: number, shardA = 0) {
  const w = await createWorld({ shardA, shardB: 1 });
  const loc = await w.as("tenantAdmin").post("/v1/locations", {
    name: "Slices",
    address: "1 Main St",
    city: "X",
    state: "IL",
    zip: "62701",
    country: "US",
    brandId: w.tenantA.brandId,
  });
  expect(loc.status).toBe(201);
  const ids = await seedContacts(w.tenantA, contacts);
  await seedSolicitations(w.tenantA, loc.body.id, ids);
  return w;
}

describe("the tenant move job, slice by slice", () => {
  it("moves in many small slices; a message delivered twice (again, and at the same time) writes nothing twice", async () => {
    const CONTACTS = 240;
    const CHUNK = 7;
    const w = await seededWorld(CONTACTS);
    const { sent, env: e } = harness();
    const move = await start(w, e, { chunkRows: CHUNK, sliceChunks: 2, settleSeconds: 0 });
    const before = await rowsOn(0, w.tenantA.id);
    expect(before).toMatchObject({ contacts: CONTACTS, solicitations: CONTACTS, contact_counts: 1, locations: 1 });
    const sums = Object.fromEntries(
      await Promise.all(Object.keys(before).map(async (t) => [t, await checksum(0, t, w.tenantA.id, CHUNK)] as const)),
    );
    expect(sent).toEqual([{ body: { kind: "tenant_move", moveId: move.id, step: 0 }, delaySeconds: 0 }]);

    let delivered = 0;
    let duplicates = 0;
    const states = new Set<string>();
    while (sent.length) {
      const { body } = sent.shift()!;
      states.add((await moveRow(move.id))!.state);
      const sentBefore = sent.length;
      if (body.step === 20) {
        // the same message twice at once: one slice commits, the other loses the compare-and-set
        const [a, b] = await Promise.all([deliver(e, body), deliver(e, body)]);
        expect([a.acked, b.acked]).toEqual([true, true]);
        expect(sent.length - sentBefore).toBe(1);
        duplicates++;
      } else if (body.step % 15 === 5) {
        // delivered, then delivered again: the second finds its step done and is dropped
        expect((await deliver(e, body)).acked).toBe(true);
        const afterFirst = sent.length;
        expect(await deliver(e, body)).toEqual({ acked: true, retryDelay: null });
        expect(sent.length).toBe(afterFirst);
        duplicates++;
      } else await deliver(e, body);
      delivered++;
      expect(delivered).toBeLessThan(2_000);
    }

    const done = (await moveRow(move.id))!;
    expect(done).toMatchObject({ state: "succeeded", sourceDeleted: true, sourceChanged: [], error: null });
    expect(duplicates).toBeGreaterThan(5);
    // 240 contacts + 240 solicitations in chunks of 7, two chunks a slice: many slices per phase
    expect(delivered).toBeGreaterThan(4 * Math.ceil((2 * CONTACTS) / CHUNK / 2));
    expect([...states]).toEqual(["fencing", "copying", "verifying", "settling", "rechecking", "deleting"]);

    const moved = { ...before };
    expect(await rowsOn(1, w.tenantA.id)).toEqual({ ...moved, audit_events: (moved.audit_events ?? 0) + 1 });
    expect(await rowsOn(0, w.tenantA.id)).toEqual({});
    for (const [table, sum] of Object.entries(sums)) {
      if (table === "audit_events") continue; // the outcome's audit row was added on the target
      expect(await checksum(1, table, w.tenantA.id, CHUNK)).toEqual(sum);
      expect(done.tables.find((t) => t.table === table)).toEqual({
        table,
        copied: sum.rows,
        rows: sum.rows,
        checksum: sum.checksum,
      });
    }
    expect(await tableRows(1, "solicitations", w.tenantA.id)).toHaveLength(CONTACTS);
    expect(
      await shardDb(env, 1)
        .select({ total: contactCounts.total })
        .from(contactCounts)
        .where(eq(contactCounts.tenantId, w.tenantA.id))
        .get(),
    ).toEqual({ total: CONTACTS });
    expect(await directoryRow(w.tenantA.id)).toEqual({ shard: 1, movingSince: null });
  }, 120_000);

  it("waits the settle delay through the queue: the first slice and the one after the flip are sent delayed", async () => {
    const w = await seededWorld(5);
    const { sent, env: e } = harness();
    const move = await start(w, e, { settleSeconds: 7 });
    expect(sent.map((s) => s.delaySeconds)).toEqual([7]);
    // delivered early (a redelivery, or a clock ahead): put back until the fence has settled
    const early = await deliver(e, sent.shift()!.body);
    expect(early.acked).toBe(false);
    expect(early.retryDelay).toBeGreaterThanOrEqual(6);
    expect((await moveRow(move.id))!.state).toBe("fencing");
    await controlDb(env).update(tenantMoves).set({ notBefore: null }).where(eq(tenantMoves.id, move.id));
    const delays: number[] = [];
    let body: TenantMoveMessage = { kind: "tenant_move", moveId: move.id, step: 0 };
    for (;;) {
      await deliver(e, body);
      const next = sent.shift();
      if (!next) break;
      delays.push(next.delaySeconds);
      body = next.body;
      if ((await moveRow(move.id))!.state === "settling") {
        // flipped: the tenant already reads from shard 1; the source waits out the other isolates' caches
        expect(next.delaySeconds).toBe(7);
        expect(await directoryRow(w.tenantA.id)).toEqual({ shard: 1, movingSince: null });
        await controlDb(env).update(tenantMoves).set({ notBefore: null }).where(eq(tenantMoves.id, move.id));
      }
    }
    expect(delays.filter((d) => d > 0)).toEqual([7]);
    expect((await moveRow(move.id))!.state).toBe("succeeded");
  }, 60_000);

  it("a verification mismatch rolls back: the copy is removed, the fence lifted, the tenant stays on its shard", async () => {
    const w = await seededWorld(30);
    const { sent, env: e } = harness();
    const move = await start(w, e, { chunkRows: 10, sliceChunks: 3 });
    const before = await rowsOn(0, w.tenantA.id);
    let tampered = false;
    while (sent.length) {
      const { body } = sent.shift()!;
      const row = (await moveRow(move.id))!;
      if (row.state === "verifying" && !tampered) {
        // a row on the target that the source does not have (a stray write during the copy)
        await shardD1(env, 1)
          .prepare(
            "update contacts set first_name = 'changed' where id = (select id from contacts where tenant_id = ? order by id limit 1)",
          )
          .bind(w.tenantA.id)
          .run();
        tampered = true;
      }
      await deliver(e, body);
    }
    const failed = (await moveRow(move.id))!;
    expect(failed).toMatchObject({
      state: "failed",
      error: expect.stringMatching(
        /^verification failed for contacts: 30 rows on shard 0, 30 on shard 1 \(checksums differ\)$/,
      ),
    });
    expect(failed.finishedAt).not.toBeNull();
    expect(await directoryRow(w.tenantA.id)).toEqual({ shard: 0, movingSince: null });
    expect(await rowsOn(1, w.tenantA.id)).toEqual({});
    expect(await rowsOn(0, w.tenantA.id)).toEqual({ ...before, audit_events: (before.audit_events ?? 0) + 1 });
    const audit = await shardD1(env, 0)
      .prepare("select next_state from audit_events where tenant_id = ? and action = 'tenant.move_failed'")
      .bind(w.tenantA.id)
      .first<{ next_state: string }>();
    expect(JSON.parse(audit!.next_state)).toEqual({ shard: 0, error: failed.error });
    // writes go on at once (the fence is lifted)
    const write = await w.as("tenantAdmin").post("/v1/contacts", { email: `after-${newId()}@example.test` });
    expect(write.status).toBe(201);
  }, 60_000);

  it("a slice that keeps failing is retried with backoff, then the move rolls back; a lost follow-up message is sent again on retry", async () => {
    const w = await seededWorld(40);
    const { sent, env: e } = harness();
    const move = await start(w, e, { chunkRows: 10, sliceChunks: 1 });
    // run until part of the copy is on the target
    while ((await moveRow(move.id))!.state !== "copying" || (await rowsOn(1, w.tenantA.id)).contacts === undefined)
      await deliver(e, sent.shift()!.body);
    expect((await rowsOn(1, w.tenantA.id)).contacts).toBeGreaterThan(0);

    // the slice commits but its follow-up is not sent (the producer fails): the retry sends it
    const lostSend = {
      ...e,
      JOBS: { send: async () => Promise.reject(new Error("queue unavailable")) },
    } as unknown as Env;
    const pending = sent.shift()!.body;
    await expect(deliver(lostSend, pending)).rejects.toThrow("queue unavailable");
    expect(sent).toEqual([]);
    expect((await moveRow(move.id))!.step).toBe(pending.step + 1);
    expect(await deliver(e, pending, 2)).toEqual({ acked: true, retryDelay: null });
    expect(sent.map((s) => s.body.step)).toEqual([pending.step + 1]);

    // the target shard fails: retried with growing delays, the error recorded, then rolled back
    const broken = {
      ...e,
      SHARD_1: {
        prepare: () => {
          throw new Error("D1_ERROR: shard 1 unavailable");
        },
        batch: () => Promise.reject(new Error("D1_ERROR: shard 1 unavailable")),
      },
    } as unknown as Env;
    const failing = sent.shift()!.body;
    const delays: number[] = [];
    for (let attempt = 1; attempt < MOVE_ATTEMPTS; attempt++) {
      const r = await deliver(broken, failing, attempt);
      expect(r.acked).toBe(false);
      delays.push(r.retryDelay!);
      expect((await moveRow(move.id))!).toMatchObject({ state: "copying", error: "D1_ERROR: shard 1 unavailable" });
    }
    expect(delays[3]!).toBeGreaterThan(delays[0]!);
    expect(await deliver(broken, failing, MOVE_ATTEMPTS)).toEqual({ acked: true, retryDelay: null });
    expect((await moveRow(move.id))!.state).toBe("rolling_back");
    while (sent.length) await deliver(e, sent.shift()!.body);

    expect((await moveRow(move.id))!).toMatchObject({ state: "failed", error: "D1_ERROR: shard 1 unavailable" });
    expect(await directoryRow(w.tenantA.id)).toEqual({ shard: 0, movingSince: null });
    expect(await rowsOn(1, w.tenantA.id)).toEqual({});
    expect((await rowsOn(0, w.tenantA.id)).contacts).toBe(40);
  }, 60_000);

  it("a move onto shard 0 (the control database) keeps the directory on the source, fenced, until the flip", async () => {
    const w = await seededWorld(25, 1);
    const { sent, env: e } = harness();
    const move = await start(w, e, { chunkRows: 10, sliceChunks: 1 }, 0);
    const fencedAt = (await directoryRow(w.tenantA.id))!.movingSince;
    expect(fencedAt).not.toBeNull();
    const seen: string[] = [];
    while (sent.length) {
      const row = (await moveRow(move.id))!;
      seen.push(row.state);
      if (["copying", "verifying"].includes(row.state))
        expect(await directoryRow(w.tenantA.id)).toEqual({ shard: 1, movingSince: fencedAt });
      await deliver(e, sent.shift()!.body);
    }
    expect(seen).toContain("copying");
    expect((await moveRow(move.id))!).toMatchObject({
      state: "succeeded",
      fromShard: 1,
      toShard: 0,
      sourceDeleted: true,
    });
    expect(await directoryRow(w.tenantA.id)).toEqual({ shard: 0, movingSince: null });
    expect(await rowsOn(1, w.tenantA.id)).toEqual({});
    expect((await rowsOn(0, w.tenantA.id)).contacts).toBe(25);
  }, 60_000);

  it("the watchdog sweep resumes a move whose message was lost, and leaves live and finished moves alone", async () => {
    const w = await seededWorld(12);
    const { sent, env: e } = harness();
    const move = await start(w, e, { chunkRows: 10, sliceChunks: 1 });
    await deliver(e, sent.shift()!.body);
    const lost = sent.shift()!.body; // dead-lettered, say: never delivered
    expect(sent).toEqual([]);
    await tenantMovesWatchdogSweep.run(e, new Date());
    expect(sent).toEqual([]); // 15 minutes have not passed
    const later = new Date(Date.now() + 16 * 60_000);
    await tenantMovesWatchdogSweep.run(e, later);
    expect(sent.map((m) => m.body)).toEqual([lost]);
    await tenantMovesWatchdogSweep.run(e, new Date(later.getTime() + 5 * 60_000));
    expect(sent).toHaveLength(1); // once per stall period
    while (sent.length) await deliver(e, sent.shift()!.body);
    expect((await moveRow(move.id))!).toMatchObject({ state: "succeeded", sourceDeleted: true });
    await tenantMovesWatchdogSweep.run(e, new Date(Date.now() + 60 * 60_000));
    expect(sent.filter((m) => m.body.moveId === move.id)).toEqual([]);
    expect((await rowsOn(1, w.tenantA.id)).contacts).toBe(12);
  }, 60_000);

  it("copies rows too large for one D1 parameter in several statements, each row once", async () => {
    const w = await createWorld({ shardA: 0, shardB: 1 });
    const now = new Date().toISOString();
    // 4 contacts of ~250,000 characters each ("€": 3 bytes apiece in UTF-8): 1 M characters, 3 MB
    const big = "€".repeat(250_000);
    const rows = Array.from({ length: 4 }, (_, i) => ({
      id: `big-${i}-${newId()}`,
      tenant_id: w.tenantA.id,
      email: `big${i}@example.test`,
      first_name: `Big${i}`,
      source_metadata: JSON.stringify({ note: big }),
      created_at: now,
      updated_at: now,
    }));
    const source = shardD1(env, 0);
    for (const r of rows)
      await source
        .prepare(
          "insert into contacts (id, tenant_id, email, first_name, source_metadata, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(...Object.values(r))
        .run();
    await mirrorTenant(
      env,
      (await controlDb(env).select().from(tenants).where(eq(tenants.id, w.tenantA.id)).get())!,
      1,
    );
    const t = (await tenantTables(source)).find((x) => x.name === "contacts")!;
    const read = await readChunk(source, t, w.tenantA.id, null, 500);
    expect(read).toHaveLength(4);
    // what D1 is sent: the local database takes any size, a deployed one refuses a value over 2 MB
    const target = shardD1(env, 1);
    const params: number[] = [];
    const watched = {
      prepare: (sql: string) => ({
        bind: (p: string) => {
          params.push(new TextEncoder().encode(p).length);
          return target.prepare(sql).bind(p);
        },
      }),
      batch: (statements: D1PreparedStatement[]) => target.batch(statements),
    } as unknown as D1Database;
    await copyRows(watched, t, read);
    expect(params.length).toBeGreaterThan(1);
    expect(Math.max(...params)).toBeLessThan(2_000_000);
    expect(params.reduce((a, b) => a + b, 0)).toBeGreaterThan(3_000_000);
    await copyRows(target, t, read); // again: nothing doubled
    expect(await checksum(1, "contacts", w.tenantA.id, 2)).toEqual(await checksum(0, "contacts", w.tenantA.id, 2));
    expect((await rowsOn(1, w.tenantA.id)).contacts).toBe(4);
  }, 60_000);

  it("refuses to copy onto a shard that still holds rows of the tenant (left by an earlier move), and leaves them there", async () => {
    const w = await seededWorld(6);
    await mirrorTenant(
      env,
      (await controlDb(env).select().from(tenants).where(eq(tenants.id, w.tenantA.id)).get())!,
      1,
    );
    const [stray] = await seedContacts({ id: w.tenantA.id, shard: 1 }, 1);
    const { sent, env: e } = harness();
    const move = await start(w, e, {});
    while (sent.length) await deliver(e, sent.shift()!.body);
    expect((await moveRow(move.id))!).toMatchObject({
      state: "failed",
      tables: [],
      error:
        "shard 1 already holds rows of this tenant (contacts, contact_counts), left by an earlier move: reconcile them first; nothing was copied",
    });
    expect(await directoryRow(w.tenantA.id)).toEqual({ shard: 0, movingSince: null });
    expect((await tableRows(1, "contacts", w.tenantA.id)).map((r) => r.id)).toEqual([stray]);
    expect((await rowsOn(0, w.tenantA.id)).contacts).toBe(6);
  }, 60_000);
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { rememberTenantShard } from "../../src/db/shards";
import type { Env } from "../../src/env";
import { newId } from "../../src/lib/ids";
import { RETRY_ROUNDS, type WriteBufferOptions, writeBuffer } from "../../src/lib/write-buffer";

/** A view-like entry: a count per page, not idempotent (adding it twice counts twice). */
interface Hit {
  key: string;
  tenantId: string;
  n: number;
}

/** Tenants known to the directory cache (no D1): one on shard 0, one on shard 1. */
function tenants() {
  const a = `ten_${newId()}`;
  const b = `ten_${newId()}`;
  rememberTenantShard(a, { shard: 1, movingSince: null });
  rememberTenantShard(b, { shard: 0, movingSince: null });
  return { a, b };
}
const fence = (tenantId: string, shard: number, on: boolean) =>
  rememberTenantShard(tenantId, { shard, movingSince: on ? new Date().toISOString() : null });

/**
 * A buffer over a fake store that behaves like the views upsert: one write per shard, all or
 * nothing, adding the counts. `fail(shard)` says whether the next write of that shard throws.
 */
interface Faults {
  fail?: (shard: number) => boolean;
  onWrite?: (shard: number) => void;
}
function harness(o: Partial<WriteBufferOptions<Hit>> & Faults = {}) {
  const writes: { shard: number; keys: string[] }[] = [];
  const store = new Map<string, number>();
  const buffer = writeBuffer<Hit>(
    {
      name: "test hits",
      flushAfterMs: 1,
      flushAt: 100,
      tenantOf: (h) => h.tenantId,
      keyOf: (h) => h.key,
      merge: (into, h) => {
        into.n += h.n;
      },
      write: async (_env, shard, hits) => {
        o.onWrite?.(shard);
        if (o.fail?.(shard)) throw new Error(`shard ${shard} is down`);
        writes.push({ shard, keys: hits.map((h) => h.key).sort() });
        for (const h of hits) store.set(h.key, (store.get(h.key) ?? 0) + h.n);
      },
      ...o,
    },
    1,
  );
  const waits: Promise<unknown>[] = [];
  const add = (h: Hit) => buffer.add(env as Env, h, (p) => waits.push(p));
  /** every flush (and its retries) the adds started, settled */
  const settled = async () => {
    while (waits.length) await waits.shift();
  };
  return { buffer, writes, store, add, settled, waits };
}

describe("the per-isolate write buffer (src/lib/write-buffer.ts)", () => {
  it("flushes after its window, one write per shard, folding entries of one key into one", async () => {
    const { a, b } = tenants();
    const h = harness();
    h.add({ key: "pa", tenantId: a, n: 1 });
    h.add({ key: "pb", tenantId: b, n: 1 });
    h.add({ key: "pa", tenantId: a, n: 1 });
    expect([h.buffer.size, h.buffer.peek("pa")?.n, h.writes]).toEqual([2, 2, []]);
    await h.settled();
    expect(h.writes.sort((x, y) => x.shard - y.shard)).toEqual([
      { shard: 0, keys: ["pb"] },
      { shard: 1, keys: ["pa"] },
    ]);
    expect([...h.store].sort()).toEqual([
      ["pa", 2],
      ["pb", 1],
    ]);
    expect(h.buffer.size).toBe(0);
  });

  it("flushes at once when it holds flushAt entries, and drops entries of a tenant the directory does not know", async () => {
    const { b } = tenants();
    const h = harness({ flushAt: 3, flushAfterMs: 60_000 });
    h.add({ key: "k1", tenantId: b, n: 1 });
    h.add({ key: "k2", tenantId: `ten_unknown_${newId()}`, n: 1 });
    h.add({ key: "k3", tenantId: b, n: 1 });
    // the first entry opened a 60 s window; the third filled the buffer and flushed at once
    expect(h.waits).toHaveLength(2);
    await h.waits[1];
    expect(h.writes).toEqual([{ shard: 0, keys: ["k1", "k3"] }]);
    expect(h.buffer.size).toBe(0);
  });

  it("entries kept through a fence do not count towards the size trigger: new entries wait for their window", async () => {
    const { a, b } = tenants();
    fence(a, 1, true);
    const h = harness({ flushAt: 2, flushAfterMs: 60_000 });
    h.add({ key: "pa1", tenantId: a, n: 1 });
    h.add({ key: "pa2", tenantId: a, n: 1 });
    await h.waits[1];
    expect(h.buffer.size).toBe(2);
    // one more entry: not a flush of three (the two kept ones would make every add a flush while the fence lasts)
    h.add({ key: "pb", tenantId: b, n: 1 });
    expect([h.buffer.size, h.waits.length]).toEqual([3, 3]);
    h.add({ key: "pb2", tenantId: b, n: 1 });
    await h.waits[3];
    expect([h.writes, h.buffer.size]).toEqual([[{ shard: 0, keys: ["pb", "pb2"] }], 2]);
  });

  it("keeps a fenced tenant's entries (neither written nor dropped) and writes them once, on the new shard, after the fence", async () => {
    const { a, b } = tenants();
    fence(a, 1, true);
    const h = harness();
    h.add({ key: "pa", tenantId: a, n: 1 });
    h.add({ key: "pb", tenantId: b, n: 1 });
    await h.settled();
    // the other tenant is written; the fenced one waited through every retry round and is still here
    expect([h.writes, h.buffer.size, h.buffer.peek("pa")]).toEqual([
      [{ shard: 0, keys: ["pb"] }],
      1,
      { key: "pa", tenantId: a, n: 1 },
    ]);
    // more views of the fenced page join the kept entry
    h.add({ key: "pa", tenantId: a, n: 1 });
    await h.settled();
    expect([h.writes.length, h.buffer.peek("pa")?.n]).toEqual([1, 2]);
    // the move flips the tenant onto shard 0 and lifts the fence: the next flush writes it there
    fence(a, 0, false);
    h.add({ key: "pb", tenantId: b, n: 1 });
    await h.settled();
    expect(h.writes.slice(1)).toEqual([{ shard: 0, keys: ["pa", "pb"] }]);
    expect([...h.store].sort()).toEqual([
      ["pa", 2],
      ["pb", 2],
    ]);
  });

  it("retries kept entries by itself: a fence lifted during the flush is written by the next round", async () => {
    const { a, b } = tenants();
    fence(a, 1, true);
    // the write of the other tenant's shard lifts the fence (a move finishing meanwhile)
    const h = harness({ onWrite: (shard) => shard === 0 && fence(a, 1, false) });
    h.add({ key: "pa", tenantId: a, n: 1 });
    h.add({ key: "pb", tenantId: b, n: 1 });
    await h.settled();
    expect(h.writes).toEqual([
      { shard: 0, keys: ["pb"] },
      { shard: 1, keys: ["pa"] },
    ]);
    expect(h.buffer.size).toBe(0);
  });

  it("a flush that fails on one shard keeps only that shard's entries: no entry lost, none counted twice", async () => {
    const { a, b } = tenants();
    let shard1Failures = 2;
    const h = harness({ fail: (shard) => shard === 1 && shard1Failures-- > 0 });
    for (let i = 0; i < 3; i++) h.add({ key: "pa", tenantId: a, n: 1 });
    h.add({ key: "pb", tenantId: b, n: 1 });
    await h.settled();
    // shard 0 written once; shard 1 failed twice and was written by the third round
    expect(h.writes).toEqual([
      { shard: 0, keys: ["pb"] },
      { shard: 1, keys: ["pa"] },
    ]);
    expect([...h.store].sort()).toEqual([
      ["pa", 3],
      ["pb", 1],
    ]);
    expect(h.buffer.size).toBe(0);
  });

  it("a shard down for longer than the retry rounds keeps its entries for the next window", async () => {
    const { a } = tenants();
    let down = true;
    let attempts = 0;
    const h = harness({ fail: () => down, onWrite: () => attempts++ });
    h.add({ key: "pa", tenantId: a, n: 1 });
    await h.settled();
    expect([attempts, h.buffer.size, h.store.size]).toEqual([1 + RETRY_ROUNDS, 1, 0]);
    down = false;
    h.add({ key: "pa", tenantId: a, n: 1 });
    await h.settled();
    expect([...h.store]).toEqual([["pa", 2]]);
  });

  it("hands entries off when it can (nothing written here), and writes them itself, fence rule included, when the hand-off refuses", async () => {
    const { a, b } = tenants();
    const handed: string[][] = [];
    let refuse = false;
    const h = harness({
      handOff: async (_env, hits) => {
        if (refuse) throw new Error("queue refused");
        handed.push(hits.map((x) => x.key).sort());
      },
    });
    fence(a, 1, true);
    h.add({ key: "pa", tenantId: a, n: 1 });
    h.add({ key: "pb", tenantId: b, n: 1 });
    await h.settled();
    // the queue takes a fenced tenant's entries too: its consumer retries them after the fence
    expect([handed, h.writes]).toEqual([[["pa", "pb"]], []]);
    refuse = true;
    h.add({ key: "pa2", tenantId: a, n: 1 });
    h.add({ key: "pb2", tenantId: b, n: 1 });
    await h.settled();
    expect([h.writes, h.buffer.size]).toEqual([[{ shard: 0, keys: ["pb2"] }], 1]);
  });
});

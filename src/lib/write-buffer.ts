import { MOVE_RETRY_AFTER_SECONDS, tenantPlacement } from "../db/shards";
import type { Env } from "../env";
import { groupBy } from "./collections";
import { log } from "./log";

/**
 * The per-isolate write buffer of the public hot paths (short-link clicks, review-link clicks,
 * feedback landing views): a request adds an entry and answers; the entries are written later, many
 * at a time, inside the waitUntil of the request that opened the flush window, so no request waits on
 * D1 or a queue, and no request waits on a promise of another request's context.
 *
 * A flush hands the entries to `handOff` when there is one (the CLICKS queue); when there is none, or
 * it refuses, it writes them itself: grouped by their tenant's shard (the directory cache, no D1 read
 * once warm), one `write` per shard, which must be all or nothing (one statement or one D1 batch).
 *
 * **The fence rule** (docs/scaling.md, "The fence"): an entry of a tenant being moved is neither
 * written nor dropped. It stays in the buffer and is written by a later flush, once the fence is
 * lifted, on the shard the directory names then. A shard write that fails keeps its entries the
 * same way; the shards written are not written again. So no entry is lost while the isolate lives,
 * and none is written twice by the buffer (counts such as views are not idempotent). Handed-off
 * entries are the queue's: its consumer retries a fenced tenant's message (src/modules/links/background.ts).
 *
 * Kept entries are retried every RETRY_AFTER_MS, at most RETRY_ROUNDS times in one waitUntil (which
 * lives 30 s after the response); after that they wait for the next entry added to open a window.
 * Entries of a tenant the directory does not know (deleted) are dropped: their rows would be orphans.
 */
export interface WriteBufferOptions<E> {
  /** for logs */
  name: string;
  /** how long a window gathers entries before its flush */
  flushAfterMs: number;
  /** this many entries (distinct keys) added since the last flush flush at once */
  flushAt: number;
  tenantOf(entry: E): string;
  /** entries with the same key are one: `merge` folds the second into the first (e.g. views of one page) */
  keyOf(entry: E): string;
  merge?(into: E, entry: E): void;
  /** a durable hand-off tried first; throws when it refuses (then the flush writes the entries itself) */
  handOff?(env: Env, entries: E[]): Promise<void>;
  /** writes entries of one shard, all or nothing */
  write(env: Env, shard: number, entries: E[]): Promise<void>;
}

export const RETRY_AFTER_MS = MOVE_RETRY_AFTER_SECONDS * 1000;
export const RETRY_ROUNDS = 5;

export interface WriteBuffer<E> {
  /** Buffers the entry; the flush runs inside `waitUntil` of the request that opens the window. */
  add(env: Env, entry: E, waitUntil: (p: Promise<unknown>) => void): void;
  /** The buffered entry with this key, if any (not yet written). */
  peek(key: string): E | undefined;
  /** Writes what is buffered now (tests, and the size trigger); resolves once written or kept. */
  flush(env: Env): Promise<void>;
  /** Entries buffered and not yet written. */
  readonly size: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function writeBuffer<E>(o: WriteBufferOptions<E>, retryAfterMs = RETRY_AFTER_MS): WriteBuffer<E> {
  let pending = new Map<string, E>();
  /** when the scheduled flush is due (null: none scheduled); one that never ran (its context ended) is replaced */
  let dueAt: number | null = null;
  /** entries added since the last flush began: the size trigger (kept entries do not re-trigger it on every add) */
  let fresh = 0;
  const stalled = (now: number) => dueAt !== null && now > dueAt + o.flushAfterMs + 1_000;

  /** True when the entry is a new key. */
  const put = (entry: E): boolean => {
    const key = o.keyOf(entry);
    const seen = pending.get(key);
    if (seen) o.merge?.(seen, entry);
    else pending.set(key, entry);
    return !seen;
  };

  async function flush(env: Env, round = 0): Promise<void> {
    const entries = [...pending.values()];
    pending = new Map();
    dueAt = null;
    fresh = 0;
    if (!entries.length) return;
    const kept = await writeOrKeep(env, entries);
    if (!kept.length) return;
    for (const entry of kept) put(entry);
    if (round >= RETRY_ROUNDS || (dueAt !== null && !stalled(Date.now()))) return;
    dueAt = Date.now() + retryAfterMs;
    await sleep(retryAfterMs);
    await flush(env, round + 1);
  }

  /** Hands off or writes the entries; returns those to keep (fenced, or their shard's write failed). */
  async function writeOrKeep(env: Env, entries: E[]): Promise<E[]> {
    if (o.handOff) {
      try {
        await o.handOff(env, entries);
        return [];
      } catch (err) {
        warn(o.name, "hand-off refused; writing directly", entries.length, err);
      }
    }
    let placed: Placed<E>[];
    try {
      placed = await placeByShard(env, entries, o.tenantOf);
    } catch (err) {
      warn(o.name, "directory unavailable; kept for the next flush", entries.length, err);
      return entries;
    }
    const writable = placed.filter((g) => !g.moving);
    const results = await Promise.allSettled(writable.map((g) => o.write(env, g.shard, g.entries)));
    const failed = writable.filter((g, i) => {
      const r = results[i]!;
      if (r.status === "rejected") {
        warn(o.name, `shard ${g.shard} write failed; kept for the next flush`, g.entries.length, r.reason);
      }
      return r.status === "rejected";
    });
    return [...placed.filter((g) => g.moving), ...failed].flatMap((g) => g.entries);
  }

  return {
    add(env, entry, waitUntil) {
      if (put(entry)) fresh++;
      const now = Date.now();
      if (fresh >= o.flushAt) waitUntil(flush(env));
      else if (dueAt === null || stalled(now)) {
        dueAt = now + o.flushAfterMs;
        waitUntil(sleep(o.flushAfterMs).then(() => flush(env)));
      }
    },
    peek: (key) => pending.get(key),
    flush: (env) => flush(env),
    get size() {
      return pending.size;
    },
  };
}

/**
 * A `handOff` onto a queue: one sendBatch, `perMessage` entries in each message's body (`bodyOf`).
 * A missing binding refuses like the queue would, so the buffer writes the entries itself.
 */
export function queueHandOff<E>(
  queueOf: (env: Env) => Queue | undefined,
  perMessage: number,
  bodyOf: (chunk: E[]) => unknown,
) {
  return async (env: Env, entries: E[]): Promise<void> => {
    const queue = queueOf(env);
    if (!queue) throw new Error("queue binding missing");
    const messages: MessageSendRequest[] = [];
    for (let i = 0; i < entries.length; i += perMessage) {
      messages.push({ body: bodyOf(entries.slice(i, i + perMessage)), contentType: "json" });
    }
    await queue.sendBatch(messages);
  };
}

/** Entries of one shard, and whether their tenant is being moved (fenced). */
export interface Placed<E> {
  shard: number;
  moving: boolean;
  entries: E[];
}

/**
 * The entries grouped by their tenant's shard (one directory lookup per tenant, cached per isolate),
 * fenced tenants' apart. Entries of an unknown tenant are dropped.
 */
export async function placeByShard<E>(env: Env, entries: E[], tenantOf: (entry: E) => string): Promise<Placed<E>[]> {
  const placements = new Map<string, { shard: number; moving: boolean } | null>();
  for (const tenantId of new Set(entries.map(tenantOf))) {
    const p = await tenantPlacement(env, tenantId);
    placements.set(tenantId, p && { shard: p.shard, moving: Boolean(p.movingSince) });
  }
  const known = entries.filter((e) => placements.get(tenantOf(e)));
  const groups = groupBy(known, (e) => {
    const p = placements.get(tenantOf(e))!;
    return `${p.shard}:${p.moving}`;
  });
  return [...groups.values()].map((group) => ({ ...placements.get(tenantOf(group[0]!))!, entries: group }));
}

function warn(buffer: string, message: string, count: number, err: unknown) {
  log.warn(`${buffer}: ${message}`, { count, error: String(err) });
}

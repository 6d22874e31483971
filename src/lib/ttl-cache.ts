/**
 * A per-isolate map whose entries expire after `ttlMs`, bounded by dropping the oldest insertions
 * (a Map keeps insertion order). Concurrent misses for one key each load it: sharing an in-flight
 * promise across requests is unsafe in Workers (its continuation would run in, and be cancelled
 * with, another request's context).
 */
export class TtlCache<T> {
  private entries = new Map<string, { value: T; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, now = Date.now()): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires > now) return e.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T, now = Date.now()) {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  /** Runs the loader and remembers what it returns. */
  async load(key: string, fn: () => Promise<T>): Promise<T> {
    const value = await fn();
    this.set(key, value);
    return value;
  }

  delete(key: string) {
    this.entries.delete(key);
  }

  clear() {
    this.entries.clear();
  }
}

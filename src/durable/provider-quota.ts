import { DurableObject } from "cloudflare:workers";

/** One quota: at most `limit` calls in any rolling `windowMs`. */
export interface QuotaRule {
  limit: number;
  windowMs: number;
}

export type QuotaDecision = { granted: true } | { granted: false; retryAfterMs: number };

interface State {
  /** grant times (ms) inside the longest window, oldest first */
  grants: number[];
  /** the provider said 429: nobody calls before this (ms) */
  blockedUntil: number;
}

/**
 * One instance per provider account (docs/reviews.md "Google Business Profile rules"): the Google
 * Cloud project's request quota, or one Business Profile's edit quota. Every isolate asks the same
 * instance before calling the provider, so the quota holds however many queue consumers run at once.
 * A rolling window (not a fixed one): a fixed window lets 2x the limit through across a boundary.
 * Kept in storage so a restart does not forget recent grants or a 429 back-off.
 */
export class ProviderQuota extends DurableObject {
  private state: State | null = null;

  /** Synchronous storage: no other call runs between a caller's read of the grants and its write. */
  private load(): State {
    this.state ??= this.ctx.storage.kv.get<State>("s") ?? { grants: [], blockedUntil: 0 };
    return this.state;
  }

  /** Grants one call now, or says how long to wait. `now` is injectable so tests run on a virtual clock. */
  async take(rule: QuotaRule, now = Date.now()): Promise<QuotaDecision> {
    const s = this.load();
    if (now < s.blockedUntil) return { granted: false, retryAfterMs: s.blockedUntil - now };
    s.grants = s.grants.filter((t) => t > now - rule.windowMs);
    if (s.grants.length >= rule.limit) {
      return {
        granted: false,
        retryAfterMs: Math.max(1, s.grants[s.grants.length - rule.limit]! + rule.windowMs - now),
      };
    }
    s.grants.push(now);
    this.ctx.storage.kv.put("s", s);
    return { granted: true };
  }

  /** The provider answered 429: hold every caller of this account until `untilMs`. */
  async backOff(untilMs: number): Promise<void> {
    const s = this.load();
    if (untilMs <= s.blockedUntil) return;
    s.blockedUntil = untilMs;
    this.ctx.storage.kv.put("s", s);
  }
}

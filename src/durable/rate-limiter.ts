import { DurableObject } from "cloudflare:workers";

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** seconds until the window resets (for Retry-After) */
  retryAfter: number;
}

export interface FailureState {
  count: number;
  /** seconds until the failure window closes */
  retryAfter: number;
}

/**
 * One instance per key (tenant, API key or IP): a fixed-window counter kept in memory and in
 * the object's storage, so a limit holds across isolates and survives eviction.
 */
export class RateLimiter extends DurableObject {
  async hit(limit: number, windowSeconds: number, now = Date.now()): Promise<RateDecision> {
    const windowMs = windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const state = this.ctx.storage.kv.get<{ start: number; count: number }>("w") ?? {
      start: windowStart,
      count: 0,
    };
    const current = state.start === windowStart ? state : { start: windowStart, count: 0 };
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    if (current.count >= limit) return { allowed: false, remaining: 0, retryAfter };
    current.count += 1;
    this.ctx.storage.kv.put("w", current);
    return { allowed: true, remaining: limit - current.count, retryAfter };
  }

  /** Failures counted since the first one, until `windowSeconds` after it (login throttling). */
  async failures(windowSeconds: number, now = Date.now()): Promise<FailureState> {
    const state = this.ctx.storage.kv.get<{ first: number; count: number }>("f");
    if (!state || now - state.first >= windowSeconds * 1000) return { count: 0, retryAfter: 0 };
    return {
      count: state.count,
      retryAfter: Math.max(1, Math.ceil((state.first + windowSeconds * 1000 - now) / 1000)),
    };
  }

  async recordFailure(windowSeconds: number, now = Date.now()): Promise<FailureState> {
    const state = this.ctx.storage.kv.get<{ first: number; count: number }>("f");
    const next =
      state && now - state.first < windowSeconds * 1000
        ? { ...state, count: state.count + 1 }
        : { first: now, count: 1 };
    this.ctx.storage.kv.put("f", next);
    return { count: next.count, retryAfter: Math.max(1, Math.ceil((next.first + windowSeconds * 1000 - now) / 1000)) };
  }

  async clearFailures(): Promise<void> {
    this.ctx.storage.kv.delete("f");
  }
}

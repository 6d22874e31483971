import { DurableObject } from "cloudflare:workers";

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** seconds until the window resets (for Retry-After) */
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
    const state = (await this.ctx.storage.get<{ start: number; count: number }>("w")) ?? { start: windowStart, count: 0 };
    const current = state.start === windowStart ? state : { start: windowStart, count: 0 };
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    if (current.count >= limit) return { allowed: false, remaining: 0, retryAfter };
    current.count += 1;
    await this.ctx.storage.put("w", current);
    return { allowed: true, remaining: limit - current.count, retryAfter };
  }
}

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

// The shared limiter on its own (src/durable/provider-quota.ts): a rolling window and a 429 back-off.
const stub = (name: string) => env.PROVIDER_QUOTA.get(env.PROVIDER_QUOTA.idFromName(`test:${name}:${Math.random()}`));
const rule = { limit: 10, windowMs: 60_000 };

describe("ProviderQuota", () => {
  it("counts a rolling minute: 10 calls at 0:59 leave none at 1:00 (a fixed window would allow 10 more)", async () => {
    const q = stub("rolling");
    for (let i = 0; i < 10; i++) expect(await q.take(rule, 59_000 + i)).toEqual({ granted: true });
    expect(await q.take(rule, 60_500)).toEqual({ granted: false, retryAfterMs: 59_000 + 60_000 - 60_500 });
    // one slot frees when the oldest grant is a minute old
    expect(await q.take(rule, 119_000)).toEqual({ granted: true });
    expect(await q.take(rule, 119_000)).toMatchObject({ granted: false });
  });

  it("holds every caller after a 429 until the back-off ends", async () => {
    const q = stub("backoff");
    expect(await q.take(rule, 1_000)).toEqual({ granted: true });
    await q.backOff(31_000);
    expect(await q.take(rule, 2_000)).toEqual({ granted: false, retryAfterMs: 29_000 });
    await q.backOff(10_000); // an earlier end does not shorten it
    expect(await q.take(rule, 30_999)).toEqual({ granted: false, retryAfterMs: 1 });
    expect(await q.take(rule, 31_000)).toEqual({ granted: true });
  });
});

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const limiter = () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`rl-${crypto.randomUUID()}`));

describe("RateLimiter under concurrent calls", () => {
  it("a window lets exactly its limit through when every request arrives at once", async () => {
    const stub = limiter();
    // one instant for every call: on a busy machine 80 calls can straddle a window boundary, and the next
    // window rightly lets more through
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 80 }, () => stub.hit(30, 60, now)));
    expect(results.filter((r) => r.allowed)).toHaveLength(30);
  });

  it("every failure counts when they are recorded at once, and a clear beside them leaves no stale count", async () => {
    const stub = limiter();
    const counts = await Promise.all(Array.from({ length: 40 }, () => stub.recordFailure(900, Date.now())));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await stub.failures(900)).count).toBe(40);
    await Promise.all([stub.clearFailures(), stub.failures(900)]);
    expect((await stub.failures(900)).count).toBe(0);
  });
});

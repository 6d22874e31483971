import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { LOGIN_DELAY_STEP_MS, LOGIN_FAILURE_WINDOW_SECONDS, LOGIN_LIMITS } from "../../src/modules/auth/throttle";
import { request } from "../helpers/http";
import { seedUser, TEST_PASSWORD } from "../helpers/seed";

const login = (email: string, password: string, ip?: string) =>
  request("POST", "/auth/login", { body: { email, password }, headers: ip ? { "cf-connecting-ip": ip } : {} });

const failures = (key: string, n: number) => {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));
  return Promise.all(Array.from({ length: n }, () => stub.recordFailure(LOGIN_FAILURE_WINDOW_SECONDS)));
};

let email = "";
beforeAll(async () => {
  email = (await seedUser({ grants: [] })).email;
});

describe("login throttling", () => {
  it("a success clears the email's failures", async () => {
    const other = (await seedUser({ grants: [] })).email;
    for (let i = 0; i < 3; i++) expect((await login(other, "wrong-password")).status).toBe(401);
    expect((await login(other, TEST_PASSWORD)).status).toBe(200);
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`login:email:${other}`));
    expect((await stub.failures(LOGIN_FAILURE_WINDOW_SECONDS)).count).toBe(0);
  });

  it("slows attempts once an email has failed slowAfter times", async () => {
    await failures(`login:email:${email}`, LOGIN_LIMITS.email.slowAfter + 2);
    const started = Date.now();
    expect((await login(email, "wrong-password")).status).toBe(401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * LOGIN_DELAY_STEP_MS);
  });

  it("refuses with 429 and Retry-After once an email reaches lockAfter failures, even with the right password", async () => {
    await failures(`login:email:${email}`, LOGIN_LIMITS.email.lockAfter);
    const res = await login(email, TEST_PASSWORD);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("RATE_LIMITED");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(LOGIN_FAILURE_WINDOW_SECONDS);
  });

  it("refuses every email from an IP that reached its lockAfter failures; other IPs are unaffected", async () => {
    const fresh = (await seedUser({ grants: [] })).email;
    await failures("login:ip:203.0.113.9", LOGIN_LIMITS.ip.lockAfter);
    const blocked = await login(fresh, TEST_PASSWORD, "203.0.113.9");
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await login(fresh, TEST_PASSWORD, "198.51.100.7")).status).toBe(200);
  });

  it("counts real failures up to the lock", async () => {
    const target = (await seedUser({ grants: [] })).email;
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_LIMITS.email.lockAfter + 1; i++)
      statuses.push((await login(target, "wrong-password", "192.0.2.44")).status);
    expect(statuses.slice(0, LOGIN_LIMITS.email.lockAfter)).toEqual(Array(LOGIN_LIMITS.email.lockAfter).fill(401));
    expect(statuses.at(-1)).toBe(429);
  }, 30_000);
});

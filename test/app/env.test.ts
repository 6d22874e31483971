import { createExecutionContext, createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { envSchema, misconfiguration } from "../../src/env";
import worker from "../../src/index";

const fetchWith = (e: Record<string, unknown>) =>
  worker.fetch(new Request("http://x/health"), e as unknown as Env, createExecutionContext());

describe("environment validation", () => {
  it("accepts the test environment (vitest.config.mts + wrangler.toml)", () => {
    expect(envSchema.safeParse(env).success).toBe(true);
    expect(misconfiguration(env)).toBeNull();
  });

  it("answers 500 naming the missing secret", async () => {
    const res = await fetchWith({ ...env, JWT_SECRET: undefined });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; code: string };
    expect(body.code).toBe("INTERNAL");
    expect(body.error).toBe("Server misconfigured: JWT_SECRET is not set");
  });

  it("names every missing binding and malformed var at once", async () => {
    const res = await fetchWith({
      ...env,
      DB: undefined,
      EVENTS: {},
      PUBLIC_BASE_URL: "not a url",
      ENCRYPTION_KEY: "c2hvcnQ=",
      MCP_RATE_LIMIT: "many",
    });
    expect(res.status).toBe(500);
    const { error } = (await res.json()) as { error: string };
    expect(error).toMatch(/^Server misconfigured: /);
    for (const key of [
      "DB must be a D1 binding",
      "EVENTS must be a queue producer binding",
      "PUBLIC_BASE_URL must be an http(s) URL",
      "ENCRYPTION_KEY must be 32 bytes",
      "MCP_RATE_LIMIT must be a positive number",
    ]) {
      expect(error).toContain(key);
    }
  });

  it("fails background work on a broken environment instead of running it half-configured", async () => {
    const batch = createMessageBatch("dead-letter", [{ id: "m", timestamp: new Date(), attempts: 1, body: {} }]);
    await expect(worker.queue(batch, { ...env, JWT_SECRET: "short" } as Env, createExecutionContext())).rejects.toThrow(
      "JWT_SECRET must be at least 32 characters",
    );
  });

  it("serves as before on a complete environment", async () => {
    const res = await fetchWith({ ...env });
    expect(res.status).toBe(200);
  });
});

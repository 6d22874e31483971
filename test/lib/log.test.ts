import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CRONS, runSweeps } from "../../src/background/cron";
import { dispatchQueue, type QueueConsumers } from "../../src/background/queue";
import { acrossShards, byTenantShard } from "../../src/background/shards";
import { shardNumbers } from "../../src/db/shards";
import { addLogContext, log, withLogContext } from "../../src/lib/log";
import { requestId } from "../../src/middleware/request-id";

// Every line the logger writes is one JSON object stamped with the unit of work it belongs to
// (docs/ARCHITECTURE.md, Logging): captured here from the console it writes to.
let lines: Record<string, unknown>[];
let methods: string[];
beforeEach(() => {
  lines = [];
  methods = [];
  for (const m of ["log", "warn", "error"] as const) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      methods.push(m);
      lines.push(JSON.parse(String(args[0])));
    });
  }
});
afterEach(() => vi.restoreAllMocks());

const fakeBatch = (queue: string, bodies: unknown[]) =>
  ({
    queue,
    messages: bodies.map((body, i) => ({ id: `m${i}`, body, attempts: 1, ack() {}, retry() {} })),
    ackAll() {},
    retryAll() {},
  }) as unknown as MessageBatch<unknown>;
const noCtx = {} as ExecutionContext;

describe("log", () => {
  it("writes one JSON line per call, at the console method of its level, with the caller's fields", () => {
    log.info("hello", { n: 1 });
    log.warn("careful");
    log.error("broken", { error: "boom" });
    expect(lines).toEqual([
      { level: "info", message: "hello", n: 1 },
      { level: "warn", message: "careful" },
      { level: "error", message: "broken", error: "boom" },
    ]);
    expect(methods).toEqual(["log", "warn", "error"]);
  });

  it("stamps the scope's fields through awaits; an inner scope adds to it without changing the outer one", async () => {
    await withLogContext({ queue: "jobs" }, async () => {
      await Promise.resolve();
      await withLogContext({ shard: 1 }, async () => {
        addLogContext({ tenantId: "t1" });
        await new Promise((r) => setTimeout(r, 0));
        log.info("inner");
      });
      log.info("outer");
    });
    log.info("outside");
    expect(lines).toEqual([
      { level: "info", message: "inner", queue: "jobs", shard: 1, tenantId: "t1" },
      { level: "info", message: "outer", queue: "jobs" },
      { level: "info", message: "outside" },
    ]);
  });

  it("stamps a request's id, method and matched route pattern, and the tenant and shard once added", async () => {
    const app = new Hono();
    app.use("*", requestId);
    app.use("/v1/*", async (_c, next) => {
      addLogContext({ tenantId: "tenant-a", shard: 1 }); // as middleware/tenant.ts does
      await next();
    });
    app.post("/v1/things/:id", (c) => {
      log.warn("handled");
      return c.text("ok");
    });
    const res = await app.request("/v1/things/42", { method: "POST", headers: { "x-request-id": "req-test-0001" } });
    expect(res.headers.get("x-request-id")).toBe("req-test-0001");
    expect(lines).toEqual([
      {
        level: "warn",
        message: "handled",
        requestId: "req-test-0001",
        method: "POST",
        route: "/v1/things/:id",
        tenantId: "tenant-a",
        shard: 1,
      },
    ]);
  });

  it("stamps a queue batch with its queue's name, and the shard its consumer runs on", async () => {
    const consumer = byTenantShard(
      async () => log.error("consumer failed"),
      () => undefined,
    );
    const consumers = { jobs: consumer } as unknown as QueueConsumers;
    await dispatchQueue(consumers)(fakeBatch("jobs", [{}]), env, noCtx);
    expect(lines).toEqual([{ level: "error", message: "consumer failed", queue: "jobs", shard: 0 }]);
  });

  it("stamps a cron run with its expression, the sweep's name and, per shard, the shard", async () => {
    const sweep = acrossShards({ name: "test-sweep", run: async () => log.info("swept") });
    const controller = { cron: CRONS.daily, scheduledTime: Date.now(), noRetry() {} } as ScheduledController;
    await runSweeps({ [CRONS.frequent]: [], [CRONS.daily]: [sweep] })(controller, env);
    // the shards run side by side: their lines come in any order
    const swept = lines.filter((l) => l.message === "swept").sort((a, b) => Number(a.shard) - Number(b.shard));
    expect(swept).toEqual(
      shardNumbers(env).map((shard) => ({
        level: "info",
        message: "swept",
        cron: CRONS.daily,
        sweep: "test-sweep",
        shard,
      })),
    );
  });
});

import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { backgroundJobs } from "../../src/db/schema";
import type { Env } from "../../src/env";
import { type JobRunner, type JobRunners, type JobStep, jobsConsumer } from "../../src/modules/jobs/runner";
import { createWorld, shardOf, type World } from "../helpers/seed";

// src/modules/jobs: a tenant's background jobs (GET /v1/jobs/{id}) and the JOBS consumer that advances
// each job one bounded step per message. The CRM import that runs on it is tested in test/integrations/.
let w: World;
const job = (id: string, tenantId: string) => ({
  id,
  tenantId,
  type: "crm_import" as const,
  status: "running" as const,
  subjectId: "int_1",
  counts: { pages: 2, fetched: 150, imported: 148 },
  cursor: "page-3",
  error: null,
  createdByUserId: null,
  startedAt: "2026-11-20T10:00:00.000Z",
  finishedAt: null,
  createdAt: "2026-11-20T09:59:00.000Z",
  updatedAt: "2026-11-20T10:01:00.000Z",
});

beforeAll(async () => {
  w = await createWorld({ shardB: 1 });
  await shardOf(w.tenantA).insert(backgroundJobs).values(job("job_a", w.tenantA.id));
  await shardOf(w.tenantB).insert(backgroundJobs).values(job("job_b", w.tenantB.id));
});

describe("GET /v1/jobs/{id}", () => {
  it("answers the job's status and counts to any role of its tenant; the resume cursor stays inside", async () => {
    const res = await w.as("viewer").get("/v1/jobs/job_a");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: "job_a",
      tenantId: w.tenantA.id,
      type: "crm_import",
      status: "running",
      subjectId: "int_1",
      counts: { pages: 2, fetched: 150, imported: 148 },
      error: null,
      startedAt: "2026-11-20T10:00:00.000Z",
      finishedAt: null,
      createdAt: "2026-11-20T09:59:00.000Z",
      updatedAt: "2026-11-20T10:01:00.000Z",
    });
  });

  it("another tenant's job (on another shard) and an unknown id are 404", async () => {
    for (const id of ["job_b", "job_nope"]) {
      const res = await w.as("tenantAdmin").get(`/v1/jobs/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    expect((await w.as("tenantBAdmin").get("/v1/jobs/job_b")).body.id).toBe("job_b");
  });
});

/** One JOBS batch through the consumer with this crm_import runner; `delays`: each retry's delaySeconds. */
async function consume(runner: JobRunner, bodies: unknown[], attempts = 1) {
  const messages = bodies.map((body, i) => ({ id: `jobs-${i}`, timestamp: new Date(), attempts, body }));
  const batch = createMessageBatch("jobs", messages);
  const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
  const ctx = createExecutionContext();
  await jobsConsumer({ crm_import: runner } as JobRunners)(batch, env as Env);
  const delays = retries.flatMap((r) => r.mock.calls.map(([o]) => o?.delaySeconds));
  return { ...(await getQueueResult(batch, ctx)), delays };
}
const stepping =
  (step: JobStep): JobRunner =>
  async () =>
    step;

describe("JOBS consumer", () => {
  const msg = (jobId: string) => ({ type: "crm_import", tenantId: w.tenantA.id, jobId });

  it("acks a finished or skipped step and a message it cannot read (dropped, never retried)", async () => {
    const seen: string[] = [];
    const runner: JobRunner = async (_env, m) => {
      seen.push(m.jobId);
      return { kind: m.jobId === "j1" ? "done" : "skipped" };
    };
    const unknownKind = { type: "unknown_kind", tenantId: "t", jobId: "x" };
    const res = await consume(runner, [msg("j1"), msg("j2"), unknownKind, "garbage"]);
    expect(seen).toEqual(["j1", "j2"]);
    expect(res.explicitAcks).toHaveLength(4);
    expect(res.retryMessages).toEqual([]);
  });

  it("retries with the runner's delay, or with the back-off when it names none or throws", async () => {
    const withDelay = await consume(stepping({ kind: "retry", delaySeconds: 42 }), [msg("j3")]);
    expect(withDelay.delays).toEqual([42]);
    expect(withDelay.explicitAcks).toEqual([]);

    const backoff = await consume(stepping({ kind: "retry", delaySeconds: null }), [msg("j4")], 3);
    const thrown = await consume(
      async () => {
        throw new Error("upstream down");
      },
      [msg("j5")],
      3,
    );
    for (const res of [backoff, thrown]) {
      expect(res.retryMessages).toHaveLength(1);
      // attempt 3: backoffSeconds(3) is between 20 and 40 s
      expect(res.delays[0]).toBeGreaterThanOrEqual(20);
      expect(res.delays[0]).toBeLessThanOrEqual(40);
      expect(res.explicitAcks).toEqual([]);
    }
  });
});

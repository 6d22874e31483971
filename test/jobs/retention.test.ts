import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { CRONS } from "../../src/background/cron";
import { backgroundJobs, exportChunks, type JobStatus, type JobType } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { addDays, nowIso } from "../../src/lib/time";
import { dueInputs, dueJobs, dueSlices, dueStalled, purgeFinishedJobs } from "../../src/modules/jobs/retention";
import { SWEEPS } from "../../src/wiring";
import { queryPlan } from "../helpers/query-plan";
import { createWorld, db, shardOf, type World } from "../helpers/seed";

// Retention of finished jobs (docs/automation.md, same title): a finished job's input (an imported CSV holds
// personal data) is cleared 7 days after it finished, its export slices deleted then too, and the row
// itself deleted 30 days after it finished. The daily `purge-finished-jobs` sweep does it on every shard.

let w: World;
beforeAll(async () => {
  w = await createWorld({ shardB: 1 });
});

const CSV = "email,firstName\nann.retention@example.test,Ann\n";
const daysAgo = (days: number) => nowIso(addDays(new Date(), -days));

/** A job row as its runner leaves it: finished `finishedDaysAgo` days ago (null: still queued or running). */
function jobRow(
  tenantId: string,
  o: {
    status: JobStatus;
    finishedDaysAgo: number | null;
    type?: JobType;
    createdDaysAgo?: number;
    /** the last progress (default: when it finished, or was created) */
    updatedDaysAgo?: number;
  },
) {
  const createdAt = daysAgo(o.createdDaysAgo ?? (o.finishedDaysAgo ?? 0) + 1);
  const finishedAt = o.finishedDaysAgo === null ? null : daysAgo(o.finishedDaysAgo);
  const updatedAt = o.updatedDaysAgo === undefined ? (finishedAt ?? createdAt) : daysAgo(o.updatedDaysAgo);
  return {
    id: `job_${newId()}`,
    tenantId,
    type: o.type ?? ("contacts_import" as const),
    status: o.status,
    subjectId: null,
    counts: { done: 1, total: 1, imported: 1, skipped: 0 },
    cursor: finishedAt ? "1" : null,
    error: o.status === "failed" ? "Internal error" : null,
    createdByUserId: null,
    input: { csv: CSV, fileName: "people.csv" },
    result: finishedAt ? { imported: 1, skipped: 0, errors: [] } : null,
    owner: null,
    startedAt: createdAt,
    finishedAt,
    createdAt,
    updatedAt,
  };
}

const tenants = () => [
  { name: "shard 0", tenant: w.tenantA, admin: "tenantAdmin" as const },
  { name: "shard 1", tenant: w.tenantB, admin: "tenantBAdmin" as const },
];

/** The daily sweep as the composition root lists it (run over every shard). */
const runDailySweep = async () => {
  const sweep = SWEEPS[CRONS.daily].find((s) => s.name === "purge-finished-jobs");
  expect(sweep, "purge-finished-jobs is listed in SWEEPS[daily]").toBeDefined();
  await sweep!.run(env, new Date());
};

const readRows = (tenant: { shard: number }, ids: string[]) =>
  shardOf(tenant).select().from(backgroundJobs).where(inArray(backgroundJobs.id, ids));

describe("purge-finished-jobs", () => {
  it("clears a finished job's input 7 days after it finished, on every shard; status, counts and result stay", async () => {
    const seeded = tenants().map(({ tenant }) => {
      const rows = {
        succeeded: jobRow(tenant.id, { status: "succeeded", finishedDaysAgo: 8 }),
        failed: jobRow(tenant.id, { status: "failed", finishedDaysAgo: 8 }),
        cancelled: jobRow(tenant.id, { status: "cancelled", finishedDaysAgo: 8 }),
        recent: jobRow(tenant.id, { status: "succeeded", finishedDaysAgo: 6 }),
        // unfinished jobs that still progress need their input, however old
        running: jobRow(tenant.id, { status: "running", finishedDaysAgo: null, createdDaysAgo: 40, updatedDaysAgo: 1 }),
        queued: jobRow(tenant.id, { status: "queued", finishedDaysAgo: null, createdDaysAgo: 40, updatedDaysAgo: 1 }),
      };
      return { tenant, rows };
    });
    for (const { tenant, rows } of seeded) await shardOf(tenant).insert(backgroundJobs).values(Object.values(rows));

    await runDailySweep();

    for (const { tenant, rows } of seeded) {
      const after = new Map(
        (
          await readRows(
            tenant,
            Object.values(rows).map((r) => r.id),
          )
        ).map((r) => [r.id, r]),
      );
      for (const k of ["succeeded", "failed", "cancelled"] as const) {
        const { input: _input, ...rest } = rows[k];
        expect(after.get(rows[k].id), `${tenant.shard} ${k}`).toEqual({ ...rest, input: null });
      }
      for (const k of ["recent", "running", "queued"] as const)
        expect(after.get(rows[k].id)?.input, `${tenant.shard} ${k}`).toEqual({ csv: CSV, fileName: "people.csv" });
    }
    // the job still answers, unchanged, on its tenant's route
    for (const { tenant, admin } of tenants()) {
      const row = seeded.find((s) => s.tenant === tenant)!.rows.succeeded;
      const res = await w.as(admin).get(`/v1/jobs/${row.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: row.id,
        status: "succeeded",
        counts: row.counts,
        finishedAt: row.finishedAt,
      });
    }
  });

  it("deletes a finished job 30 days after it finished (with any slices left); GET /v1/jobs/{id} is then 404", async () => {
    const seeded = tenants().map(({ tenant, admin }) => ({
      tenant,
      admin,
      old: jobRow(tenant.id, { status: "succeeded", finishedDaysAgo: 31 }),
      oldExport: jobRow(tenant.id, { status: "cancelled", finishedDaysAgo: 31, type: "tenant_export" }),
      young: jobRow(tenant.id, { status: "failed", finishedDaysAgo: 29 }),
      stuck: jobRow(tenant.id, { status: "running", finishedDaysAgo: null, createdDaysAgo: 60, updatedDaysAgo: 1 }),
    }));
    for (const s of seeded) {
      await shardOf(s.tenant).insert(backgroundJobs).values([s.old, s.oldExport, s.young, s.stuck]);
      // a cancelled export's partial slices: never downloadable, gone with the job
      await shardOf(s.tenant)
        .insert(exportChunks)
        .values(
          [0, 1].map((seq) => ({
            jobId: s.oldExport.id,
            tenantId: s.tenant.id,
            seq,
            body: "{}\n",
            rows: 1,
            createdAt: daysAgo(32),
          })),
        );
    }

    await runDailySweep();

    for (const s of seeded) {
      const left = await readRows(s.tenant, [s.old.id, s.oldExport.id, s.young.id, s.stuck.id]);
      expect(left.map((r) => r.id).sort()).toEqual([s.young.id, s.stuck.id].sort());
      expect(await shardOf(s.tenant).select().from(exportChunks).where(eq(exportChunks.jobId, s.oldExport.id))).toEqual(
        [],
      );
      const gone = await w.as(s.admin).get(`/v1/jobs/${s.old.id}`);
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe("NOT_FOUND");
      expect((await w.as(s.admin).get(`/v1/jobs/${s.young.id}`)).body.status).toBe("failed");
    }
  });

  it("gives up a queued or running job without progress for 7 days: failed from now on, so the rules above apply", async () => {
    const seeded = tenants().map(({ tenant, admin }) => ({
      tenant,
      admin,
      stalled: jobRow(tenant.id, { status: "running", finishedDaysAgo: null, createdDaysAgo: 20, updatedDaysAgo: 8 }),
      neverStarted: jobRow(tenant.id, { status: "queued", finishedDaysAgo: null, createdDaysAgo: 8 }),
      slow: jobRow(tenant.id, { status: "running", finishedDaysAgo: null, createdDaysAgo: 20, updatedDaysAgo: 6 }),
    }));
    for (const s of seeded) await shardOf(s.tenant).insert(backgroundJobs).values([s.stalled, s.neverStarted, s.slow]);
    const before = nowIso();

    await runDailySweep();

    for (const s of seeded) {
      const after = new Map(
        (await readRows(s.tenant, [s.stalled.id, s.neverStarted.id, s.slow.id])).map((r) => [r.id, r]),
      );
      for (const given of [s.stalled, s.neverStarted]) {
        const row = after.get(given.id)!;
        expect(row, `shard ${s.tenant.shard}`).toMatchObject({
          status: "failed",
          error: "Stopped: no progress for 7 days",
          counts: given.counts,
          // its input stays until 7 days after this finish, like any finished job's
          input: given.input,
        });
        expect(row.finishedAt! >= before).toBe(true);
        expect(row.updatedAt).toBe(row.finishedAt);
      }
      expect(after.get(s.slow.id)).toEqual(s.slow);
      const res = await w.as(s.admin).get(`/v1/jobs/${s.stalled.id}`);
      expect(res.body).toMatchObject({ status: "failed", error: "Stopped: no progress for 7 days" });
    }
  });

  it("works in bounded batches, picks up where it stopped, and a rerun does nothing", async () => {
    const shard = shardOf(w.tenantA);
    const rows = Array.from({ length: 25 }, () => jobRow(w.tenantA.id, { status: "succeeded", finishedDaysAgo: 10 }));
    // one row per insert: D1 binds at most 100 parameters per statement
    for (const r of rows) await shard.insert(backgroundJobs).values(r);
    const limits = { batch: 10, maxBatches: 2 };
    // jobs of the earlier tests are already done: only these 25 are due
    expect(await purgeFinishedJobs(shard, new Date(), limits)).toEqual({
      jobsStopped: 0,
      inputsCleared: 20,
      slicesDeleted: 0,
      jobsDeleted: 0,
    });
    expect(await purgeFinishedJobs(shard, new Date(), limits)).toEqual({
      jobsStopped: 0,
      inputsCleared: 5,
      slicesDeleted: 0,
      jobsDeleted: 0,
    });
    expect(await purgeFinishedJobs(shard, new Date(), limits)).toEqual({
      jobsStopped: 0,
      inputsCleared: 0,
      slicesDeleted: 0,
      jobsDeleted: 0,
    });
    const after = await readRows(
      w.tenantA,
      rows.map((r) => r.id),
    );
    expect(after.filter((r) => r.input !== null)).toEqual([]);
    expect(after).toHaveLength(25);
  });

  it("finds due jobs by a range seek on jobs_finished_idx, never a scan of jobs or slices", async () => {
    const cutoff = daysAgo(7);
    for (const query of [dueInputs(db(), cutoff, 100), dueJobs(db(), cutoff, 100), dueSlices(db(), cutoff, 100)]) {
      const steps = (await queryPlan(query)).join("\n");
      expect(steps).toMatch(/SEARCH jobs USING INDEX jobs_finished_idx \(finished_at<\?\)/);
      expect(steps).not.toMatch(/SCAN (jobs|export_chunks)/);
    }
    // unfinished jobs: the index's NULL entries
    expect((await queryPlan(dueStalled(db(), cutoff, 100))).join("\n")).toMatch(
      /SEARCH jobs USING INDEX jobs_finished_idx \(finished_at=\?\)|SEARCH jobs USING INDEX jobs_finished_idx \(finished_at IS NULL\)/,
    );
    expect((await queryPlan(dueSlices(db(), cutoff, 100))).join("\n")).toMatch(
      /SEARCH export_chunks USING (COVERING )?INDEX sqlite_autoindex_export_chunks_1 \(job_id=\?\)/,
    );
  });
});

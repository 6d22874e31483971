import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, backgroundJobs, contacts } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { keyClient } from "../helpers/checks";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";

// POST /v1/contacts/import-jobs and GET /v1/contacts/import-jobs/{jobId}: the CSV import as a job with
// progress over REST, the same job (contacts_import, src/modules/contacts/import-job.ts) an MCP client
// follows as a task; the synchronous POST /v1/contacts/import/csv is unchanged.

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const form = (body: string | Uint8Array, name = "people.csv") => {
  const f = new FormData();
  f.append("file", new File([body], name, { type: "text/csv" }));
  return f;
};
const start = (body: string | Uint8Array, as: Parameters<World["as"]>[0] = "tenantUser") =>
  w.as(as).post("/v1/contacts/import-jobs", form(body));
const read = (jobId: string, as: Parameters<World["as"]>[0] = "viewer") =>
  w.as(as).get(`/v1/contacts/import-jobs/${jobId}`);
const finished = (jobId: string) =>
  pollUntil(
    () => read(jobId),
    (r) => ["succeeded", "failed"].includes(r.body.status),
    20_000,
    100,
  );
const jobCount = async (tenantId: string) =>
  (await db().select({ n: count() }).from(backgroundJobs).where(eq(backgroundJobs.tenantId, tenantId)))[0]!.n;

describe("POST /v1/contacts/import-jobs", () => {
  it("answers 202 with the queued job and its URL; the job imports 100 rows a step and reports rows done, per-row errors and state", async () => {
    const rows = Array.from({ length: 250 }, (_, i) => `person${i}@jobs.test,Person,${i}`);
    rows[9] = "not-an-email,Bad,9"; // data row 10
    rows[120] = ",Nobody,120"; // data row 121
    rows[249] = "also bad,Bad,249"; // data row 250
    const res = await start(["email,first_name,last_name", ...rows].join("\n"));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.headers.get("location")).toBe(`/v1/contacts/import-jobs/${res.body.id}`);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^job_/),
      status: "queued",
      fileName: "people.csv",
      rowsTotal: 250,
      rowsDone: 0,
      imported: 0,
      skipped: 0,
      errors: [],
      error: null,
      startedAt: null,
      finishedAt: null,
    });
    const done = await finished(res.body.id);
    expect(done.body).toMatchObject({
      status: "succeeded",
      rowsTotal: 250,
      rowsDone: 250,
      imported: 247,
      skipped: 3,
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    expect(done.body.errors).toEqual([
      { row: 10, reason: "email: Invalid email address" },
      { row: 121, reason: "email: email or phone is required" },
      { row: 250, reason: "email: Invalid email address" },
    ]);
    const imported = await db().select({ n: count() }).from(contacts).where(eq(contacts.tenantId, w.tenantA.id));
    expect(imported[0]!.n).toBe(247);
    // one job, seen through the generic job route as the MCP task sees it: no copy
    const job = await w.as("viewer").get(`/v1/jobs/${res.body.id}`);
    expect(job.body).toMatchObject({ type: "contacts_import", status: "succeeded", counts: { done: 250, total: 250 } });
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, res.body.id), eq(auditEvents.action, "contact.import_requested")))
      .get();
    expect(audit).toMatchObject({ actorId: w.users.tenantUser.id, metadata: expect.objectContaining({ rows: 250 }) });
  });

  it("reads the file as the synchronous import does (a Windows-1252 export from Excel)", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode("email,first_name\nzoe@jobs.test,Zo"),
      0xeb, // ë in Windows-1252
      0x0a,
    ]);
    const res = await start(bytes);
    expect(res.status).toBe(202);
    expect((await finished(res.body.id)).body).toMatchObject({ status: "succeeded", imported: 1 });
    const zoe = await db().select().from(contacts).where(eq(contacts.email, "zoe@jobs.test")).get();
    expect(zoe?.firstName).toBe("Zoë");
  });

  it("refuses before storing anything: no file or a bad header 400, over 1 MB or 5,000 rows 413", async () => {
    const before = await jobCount(w.tenantA.id);
    const noFile = await w.as("tenantUser").post("/v1/contacts/import-jobs", new FormData());
    expect(noFile.status).toBe(400);
    expect(noFile.body.code).toBe("VALIDATION_ERROR");
    const header = await start("name,city\nAnn,Paris\n");
    expect(header.status).toBe(400);
    expect(header.body.details.issues).toEqual([
      { path: "file", message: "The CSV header needs an email or a phone column" },
    ]);
    const big = await start(`email\n${"x".repeat(1_000_001)}\n`);
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(big.body.details).toEqual({ reason: "file_too_large" });
    // past the multipart's allowance, the route's body limit answers the same, before the body is read
    const bigger = await start(`email\n${"x".repeat(1_100_000)}\n`);
    expect([bigger.status, bigger.body.details]).toEqual([413, { reason: "file_too_large" }]);
    const many = await start(["email", ...Array.from({ length: 5001 }, (_, i) => `m${i}@x.test`)].join("\n"));
    expect(many.status).toBe(413);
    expect(await jobCount(w.tenantA.id)).toBe(before);
  });

  it("tenant_user and up start a job, any role reads it; viewer 403; another agency's admin 403", async () => {
    const viewer = await start("email\nv@jobs.test\n", "viewer");
    expect(viewer.status).toBe(403);
    expect(viewer.body.code).toBe("FORBIDDEN");
    expect((await start("email\nx@jobs.test\n", "otherAgencyAdmin")).status).toBe(403);
    for (const as of ["manager", "tenantAdmin", "agencyAdmin"] as const) {
      const res = await start(`email\n${as}@jobs.test\n`, as);
      expect(res.status, as).toBe(202);
      for (const reader of ["viewer", "tenantUser", "platformAdmin"] as const)
        expect((await read(res.body.id, reader)).status, reader).toBe(200);
    }
  });
});

describe("GET /v1/contacts/import-jobs/{jobId}", () => {
  it("another tenant's job, an unknown id and a job of another kind are 404", async () => {
    const b = await w.as("tenantBAdmin").post("/v1/contacts/import-jobs", form("email\nb@jobs.test\n"));
    expect(b.status).toBe(202);
    const other = `job_${newId()}`;
    const now = nowIso();
    await db().insert(backgroundJobs).values({
      id: other,
      tenantId: w.tenantA.id,
      type: "crm_import",
      status: "queued",
      counts: {},
      createdAt: now,
      updatedAt: now,
    });
    for (const id of [b.body.id, "job_unknown", other]) {
      const res = await read(id);
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    expect((await w.as("tenantBAdmin").get(`/v1/contacts/import-jobs/${b.body.id}`)).status).toBe(200);
  });

  it("API keys: write:contacts starts one, read:contacts follows it, a read-only key cannot start", async () => {
    const key = (scopes: string[]) => keyClient(w, scopes);
    const writer = await key(["write:contacts"]);
    const started = await writer.post("/v1/contacts/import-jobs", form("email\nkey@jobs.test\n"));
    expect(started.status).toBe(202);
    const reader = await key(["read:contacts"]);
    expect((await reader.get(`/v1/contacts/import-jobs/${started.body.id}`)).body.id).toBe(started.body.id);
    const denied = await reader.post("/v1/contacts/import-jobs", form("email\nno@jobs.test\n"));
    expect(denied.status).toBe(403);
    const campaigns = await key(["read:campaigns"]);
    expect((await campaigns.get(`/v1/contacts/import-jobs/${started.body.id}`)).status).toBe(403);
  });
});

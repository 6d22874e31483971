import { env, exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { CRONS } from "../../src/background/cron";
import { auditEvents, backgroundJobs, exportChunks } from "../../src/db/schema";
import type { Env } from "../../src/env";
import { runTenantExport } from "../../src/modules/exports/job";
import { SWEEPS } from "../../src/wiring";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, shardOf, type World } from "../helpers/seed";

// The tenant data export (docs/exports.md): a tenant_export job writes the tenant's own rows as JSON Lines
// slices on its shard; GET /v1/exports/{id}/download streams them. Secrets never leave the service.

let w: World;
const seeded: Record<string, string> = {};
const CREDENTIAL = "export-test-access-token-never-exported";

beforeAll(async () => {
  w = await createWorld({ shardB: 1 });
  for (const [who, tenant] of [
    ["tenantAdmin", "a"],
    ["tenantBAdmin", "b"],
  ] as const) {
    const as = w.as(who);
    const loc = await as.post("/v1/locations", { name: `Export ${tenant}`, city: "Springfield" });
    expect(loc.status, JSON.stringify(loc.body)).toBe(201);
    seeded[`${tenant}.location`] = loc.body.id;
    const contact = await as.post("/v1/contacts", { email: `export.${tenant}@example.test` });
    seeded[`${tenant}.contact`] = contact.body.id;
    const campaign = await as.post("/v1/campaigns", {
      name: `Export ${tenant}`,
      type: "one_time",
      channels: ["email"],
    });
    seeded[`${tenant}.campaign`] = campaign.body.id;
    const hook = await as.post("/v1/webhooks", {
      url: `https://hooks.example.com/${tenant}`,
      events: ["review.created"],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    seeded[`${tenant}.webhook`] = hook.body.id;
    seeded[`${tenant}.webhookSecret`] = hook.body.secret;
    const integration = await as.post("/v1/integrations", {
      isSandbox: true,
      connectorType: "yelp",
      name: `yelp ${tenant}`,
      locationId: loc.body.id,
      config: { businessId: "b", apiBaseUrl: "http://127.0.0.1:9" },
      credentials: { apiKey: CREDENTIAL },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    seeded[`${tenant}.integration`] = integration.body.id;
  }
  // tenant A suppresses its contact: the export carries the suppression state
  await w.as("tenantAdmin").post(`/v1/contacts/${seeded["a.contact"]}/suppress`, { reason: "asked" });
});

/** The download, read raw: the shared client parses any "json" media type as one JSON document. */
async function download(token: string, tenantId: string, path: string) {
  const worker = (exports as unknown as { default: Fetcher }).default;
  const res = await worker.fetch(
    new Request(`http://localhost:8787${path}`, {
      headers: { authorization: `Bearer ${token}`, "x-tenant-id": tenantId },
    }),
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}

type Line = { table: string; row: Record<string, any> };
const parse = (text: string): Line[] =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

async function exportAndDownload(who: "tenantAdmin" | "tenantBAdmin") {
  const as = w.as(who);
  const created = await as.post("/v1/exports", {});
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  expect(created.body).toMatchObject({ status: "queued", downloadUrl: null });
  // a 202 says where to follow the job (RFC 9110, 15.3.3)
  expect(created.headers.get("location")).toBe(`/v1/exports/${created.body.id}`);
  const done = await pollUntil(
    () => as.get(`/v1/exports/${created.body.id}`),
    (r) => r.body.status === "succeeded" || r.body.status === "failed",
    30_000,
  );
  expect(done.body.status, JSON.stringify(done.body)).toBe("succeeded");
  expect(done.body.downloadUrl).toBe(`/v1/exports/${created.body.id}/download`);
  const file = await download(as.token!, as.tenantId!, done.body.downloadUrl);
  expect(file.status).toBe(200);
  expect(file.headers.get("content-type")).toContain("application/x-ndjson");
  expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="tenant-export-.+\.jsonl"$/);
  const lines = parse(file.text);
  expect(done.body.progress.done).toBe(lines.length);
  return { id: created.body.id as string, lines, text: file.text, status: done.body };
}

describe("tenant data export", () => {
  it("contains exactly the tenant's rows, suppression state included, and no secrets", async () => {
    const { id, lines, text } = await exportAndDownload("tenantAdmin");
    const ids = (table: string) => lines.filter((l) => l.table === table).map((l) => l.row.id);
    expect(ids("locations")).toEqual([seeded["a.location"]]);
    expect(ids("contacts")).toEqual([seeded["a.contact"]]);
    expect(ids("campaigns")).toEqual([seeded["a.campaign"]]);
    expect(ids("webhook_subscriptions")).toEqual([seeded["a.webhook"]]);
    expect(ids("integrations")).toEqual([seeded["a.integration"]]);
    const contact = lines.find((l) => l.table === "contacts")!.row;
    expect(contact).toMatchObject({ email: "export.a@example.test", isSuppressed: true });
    expect(ids("audit_events").length).toBeGreaterThan(0);
    // every row is tenant A's; nothing of tenant B
    for (const l of lines) expect(l.row.tenantId, l.table).toBe(w.tenantA.id);
    for (const k of ["location", "contact", "campaign", "webhook", "integration"])
      expect(text).not.toContain(seeded[`b.${k}`]);
    // secrets: neither sealed nor raw
    const hook = lines.find((l) => l.table === "webhook_subscriptions")!.row;
    expect(hook).not.toHaveProperty("secretEncrypted");
    const integration = lines.find((l) => l.table === "integrations")!.row;
    expect(integration).not.toHaveProperty("credentialsEncrypted");
    expect(text).not.toContain(seeded["a.webhookSecret"]);
    expect(text).not.toContain(CREDENTIAL);
    expect(text).not.toMatch(/"v1\.[A-Za-z0-9+/=_-]{20,}/);
    expect(lines.some((l) => l.table === "api_keys")).toBe(false);
    // creation and download are audited
    const actions = (
      await db()
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.resourceId, id)))
    ).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["tenant_export.requested", "tenant_export.downloaded"]));
  });

  it("a shard-1 tenant's export holds its rows, read from shard 1", async () => {
    const { id, lines } = await exportAndDownload("tenantBAdmin");
    expect(lines.filter((l) => l.table === "contacts").map((l) => l.row.id)).toEqual([seeded["b.contact"]]);
    for (const l of lines) expect(l.row.tenantId).toBe(w.tenantB.id);
    const chunks = await shardOf(w.tenantB).select().from(exportChunks).where(eq(exportChunks.jobId, id));
    expect(chunks.length).toBeGreaterThan(0);
    expect(await db().select().from(exportChunks).where(eq(exportChunks.jobId, id))).toEqual([]);
  });

  it("redelivered and concurrent slice messages do not duplicate lines", async () => {
    const jobId = `job_${crypto.randomUUID().replaceAll("-", "")}`;
    const now = new Date().toISOString();
    await db()
      .insert(backgroundJobs)
      .values({
        id: jobId,
        tenantId: w.tenantA.id,
        type: "tenant_export",
        status: "queued",
        subjectId: null,
        counts: { done: 0, total: 0 },
        cursor: null,
        error: null,
        createdByUserId: null,
        // two rows per step: many steps over the seeded data
        input: { rowsPerStep: 2 },
        result: null,
        owner: null,
        startedAt: null,
        finishedAt: null,
        createdAt: now,
        updatedAt: now,
      });
    const msg = { type: "tenant_export" as const, tenantId: w.tenantA.id, jobId };
    for (let i = 0; i < 200; i++) {
      // the same message twice at once, then once more after (a redelivery): each step is written once
      const steps = await Promise.all([
        runTenantExport(env as Env, msg, 1, fetch),
        runTenantExport(env as Env, msg, 1, fetch),
      ]);
      await runTenantExport(env as Env, msg, 2, fetch);
      if (steps.every((s) => s.kind !== "continue")) break;
    }
    const job = await db().select().from(backgroundJobs).where(eq(backgroundJobs.id, jobId)).get();
    expect(job?.status).toBe("succeeded");
    const res = await download(w.users.tenantAdmin.token, w.tenantA.id, `/v1/exports/${jobId}/download`);
    const lines = parse(res.text);
    const keys = lines.map((l) => `${l.table}/${l.row.id}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(
      expect.arrayContaining([`contacts/${seeded["a.contact"]}`, `locations/${seeded["a.location"]}`]),
    );
    expect(job?.counts.done).toBe(lines.length);
  });

  it("the download expires 7 days after the export finished; its slices are deleted then", async () => {
    const { id } = await exportAndDownload("tenantAdmin");
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    await db().update(backgroundJobs).set({ finishedAt: eightDaysAgo }).where(eq(backgroundJobs.id, id));
    const got = await w.as("tenantAdmin").get(`/v1/exports/${id}`);
    expect(got.body).toMatchObject({ status: "succeeded", downloadUrl: null });
    expect(Date.parse(got.body.expiresAt)).toBe(Date.parse(eightDaysAgo) + 7 * 24 * 3600 * 1000);
    const file = await download(w.users.tenantAdmin.token, w.tenantA.id, `/v1/exports/${id}/download`);
    expect(file.status).toBe(404);
    expect(await db().select().from(exportChunks).where(eq(exportChunks.jobId, id))).toEqual([]);
  });

  it("the daily sweep deletes an expired export's slices without anyone asking for it, on both shards", async () => {
    const sweep = SWEEPS[CRONS.daily].find((s) => s.name === "purge-finished-jobs");
    expect(sweep, "purge-finished-jobs is listed in SWEEPS[daily]").toBeDefined();
    const exported = [];
    for (const [who, tenant] of [
      ["tenantAdmin", w.tenantA],
      ["tenantBAdmin", w.tenantB],
    ] as const) {
      const expired = await exportAndDownload(who);
      const fresh = await exportAndDownload(who);
      const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
      await shardOf(tenant)
        .update(backgroundJobs)
        .set({ finishedAt: eightDaysAgo })
        .where(eq(backgroundJobs.id, expired.id));
      exported.push({ who, tenant, expired, fresh });
    }

    await sweep!.run(env as Env, new Date());

    for (const { who, tenant, expired, fresh } of exported) {
      const slices = (id: string) => shardOf(tenant).select().from(exportChunks).where(eq(exportChunks.jobId, id));
      expect(await slices(expired.id), who).toEqual([]);
      expect((await slices(fresh.id)).length, who).toBeGreaterThan(0);
      // the export still answers, as expired; its download is 404; the fresh one still downloads whole
      const got = await w.as(who).get(`/v1/exports/${expired.id}`);
      expect(got.body).toMatchObject({ id: expired.id, status: "succeeded", downloadUrl: null });
      expect(got.body.progress.done).toBe(expired.lines.length);
      const as = w.as(who);
      expect((await download(as.token!, as.tenantId!, `/v1/exports/${expired.id}/download`)).status).toBe(404);
      const again = await download(as.token!, as.tenantId!, `/v1/exports/${fresh.id}/download`);
      expect(again.text).toBe(fresh.text);
    }
  });

  it("another tenant's export id is 404 on all three routes", async () => {
    const { id } = await exportAndDownload("tenantBAdmin");
    const a = w.as("tenantAdmin");
    const got = await a.get(`/v1/exports/${id}`);
    expect(got.status).toBe(404);
    expect(got.body.code).toBe("NOT_FOUND");
    const file = await download(w.users.tenantAdmin.token, w.tenantA.id, `/v1/exports/${id}/download`);
    expect(file.status).toBe(404);
    expect(JSON.parse(file.text).code).toBe("NOT_FOUND");
    expect(file.text).not.toContain(seeded["b.contact"]);
    // a job that is not an export (another kind) is not an export either
    expect((await a.get("/v1/exports/job_doesnotexist000")).status).toBe(404);
  });

  it("GET /v1/exports lists the tenant's exports newest first, as GET /v1/exports/{id} shows each; never another's", async () => {
    const first = await exportAndDownload("tenantAdmin");
    const second = await exportAndDownload("tenantAdmin");
    const a = w.as("tenantAdmin");
    const page = await a.get("/v1/exports?limit=1");
    expect(page.status).toBe(200);
    expect(page.body.data).toEqual([(await a.get(`/v1/exports/${second.id}`)).body]);
    expect(page.body.pageInfo.hasNextPage).toBe(true);
    const next = await a.get(`/v1/exports?limit=1&cursor=${page.body.pageInfo.endCursor}`);
    expect(next.body.data[0].id).toBe(first.id);
    const all = await a.get("/v1/exports?limit=200");
    expect(all.body.total).toBe(all.body.data.length);
    const theirs = (await w.as("tenantBAdmin").get("/v1/exports?limit=200")).body.data.map((e: { id: string }) => e.id);
    expect(theirs).not.toContain(first.id);
    expect(theirs).not.toContain(second.id);
    for (const who of ["manager", "viewer"] as const)
      expect((await w.as(who).get("/v1/exports")).status, who).toBe(403);
  });

  it("is for tenant admins only, and only when allowDataExport is on", async () => {
    for (const who of ["manager", "tenantUser", "viewer"] as const) {
      const res = await w.as(who).post("/v1/exports", {});
      expect(res.status, who).toBe(403);
    }
    await w.as("tenantAdmin").put("/v1/compliance", { allowDataExport: false });
    const refused = await w.as("tenantAdmin").post("/v1/exports", {});
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/allowDataExport|disabled/);
    expect(refused.body.details).toEqual({ reason: "export_disabled" });
    await w.as("tenantAdmin").put("/v1/compliance", { allowDataExport: true });
  });
});

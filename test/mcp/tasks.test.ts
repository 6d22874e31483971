import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { CRONS } from "../../src/background/cron";
import { backgroundJobs, contacts } from "../../src/db/schema";
import type { Env } from "../../src/env";
import { runContactsImport } from "../../src/modules/contacts/import-job";
import { taskOwner } from "../../src/modules/mcp/tasks";
import { SWEEPS } from "../../src/wiring";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, shardOf, type World } from "../helpers/seed";
import { BASE, confirmationLink, confirmInBrowser, mintTestKey, rawPost, workerFetch } from "./helpers";

// The 2026-07-28 Tasks extension (io.modelcontextprotocol/tasks, SEP-2663; docs/mcp.md "Tasks (long jobs)"):
// a client that declares the extension in a request's capabilities gets a task handle for the long jobs
// (CSV contact import, campaign bulk send, review sync), polls tasks/get until the job is done and reads the
// tool's result there. Every other client keeps the synchronous answer.

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const WITH_TASKS = { extensions: { [TASKS]: {} } };
let nextId = 1;

let w: World;
let campaignId: string;
let locationId: string;

beforeAll(async () => {
  w = await createWorld({ shardB: 1 });
  locationId = (await w.as("manager").post("/v1/locations", { name: "Task Street", city: "Springfield" })).body.id;
  campaignId = (
    await w.as("manager").post("/v1/campaigns", { name: "Bulk", type: "one_time", channels: ["email", "sms"] })
  ).body.id;
  const nowhere = { apiBaseUrl: "http://127.0.0.1:9" };
  for (const [connectorType, config, credentials] of [
    ["google", { accountId: "1", locationId: "1", ...nowhere }, { accessToken: "t" }],
    ["yelp", { businessId: "b", ...nowhere }, { apiKey: "k" }],
  ] as const) {
    const res = await w.as("tenantAdmin").post("/v1/integrations", {
      isSandbox: true,
      connectorType,
      name: connectorType,
      locationId,
      config,
      credentials,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});

/** A 2026-07-28 request; tasks/* name the task in Mcp-Name (the extension's routing header). */
async function rpc(token: string, method: string, params: Record<string, unknown>, capabilities: object = WITH_TASKS) {
  const name = method === "tools/call" ? String(params.name) : method.startsWith("tasks/") ? params.taskId : undefined;
  const res = await rawPost(
    {
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    },
    {
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": V,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
  );
  return { status: res.status, body: (await res.json()) as any };
}

/** A tools/call the user confirmed (on the confirm page the refusal links to), as a client without elicitation makes it. */
async function callConfirmed(
  token: string,
  name: string,
  args: Record<string, unknown>,
  capabilities: object = WITH_TASKS,
) {
  const first = await rpc(token, "tools/call", { name, arguments: args }, capabilities);
  const link = confirmationLink(first.body.result);
  if (!link) return first;
  await confirmInBrowser(link);
  return rpc(token, "tools/call", { name, arguments: args }, capabilities);
}

/** Polls tasks/get until the task is terminal; returns the last answer and every progress seen on the way. */
async function untilDone(token: string, taskId: string) {
  const seen: { done: number; total: number }[] = [];
  const last = await pollUntil(
    async () => {
      const r = await rpc(token, "tasks/get", { taskId });
      const progress = r.body.result?._meta?.["reputation-ops/progress"];
      if (progress) seen.push(progress);
      return r.body.result;
    },
    (t) => ["completed", "failed", "cancelled"].includes(t?.status),
    20_000,
  );
  return { task: last, seen };
}

const csvOf = (n: number, prefix: string) =>
  ["email,first_name", ...Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com,P${i}`)].join("\n");

describe("discovery", () => {
  it("server/discover declares the tasks extension under capabilities.extensions, not a v1 capabilities.tasks", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    const { body } = await rpc(key.token, "server/discover", {});
    // beside the MCP Apps extension (docs/mcp.md, MCP Apps)
    expect(body.result.capabilities.extensions).toEqual({ [TASKS]: {}, "io.modelcontextprotocol/ui": {} });
    expect(body.result.capabilities.tasks).toBeUndefined();
  });

  it("the catalog says which tools may answer with a task", async () => {
    const body = (await (await workerFetch(`${BASE}/mcp/skills`)).json()) as any;
    const support = Object.fromEntries(body.skills.map((s: any) => [s.name, s.taskSupport]));
    expect(support["contact.import-csv"]).toBe("optional");
    expect(support["campaign.send-bulk"]).toBe("optional");
    expect(support["review.sync"]).toBe("optional");
    expect(support["location.list"]).toBe("forbidden");
  });
});

describe("contact.import-csv as a task", () => {
  it("answers a CreateTaskResult at once; tasks/get reports progress from the job's counters, then the tool's result", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:contacts", "read:contacts"]);
    const csv = `${csvOf(120, "task.import")}\nnot-an-email,Bad`;
    const created = await callConfirmed(key.token, "contact.import-csv", { csv, fileName: "people.csv" });
    expect(created.status).toBe(200);
    const handle = created.body.result;
    expect(handle).toMatchObject({ resultType: "task", status: "working", ttlMs: expect.any(Number) });
    expect(handle.taskId).toMatch(/^[a-z0-9]{1,64}\.[a-z0-9_]{20,}$/);
    expect(Number.isInteger(handle.pollIntervalMs)).toBe(true);
    expect(Date.parse(handle.createdAt)).not.toBeNaN();
    expect(Date.parse(handle.lastUpdatedAt)).not.toBeNaN();
    for (const k of ["task", "result", "error", "requestState", "ttl", "pollInterval", "structuredContent"])
      expect(handle, k).not.toHaveProperty(k);

    // durable before the answer: an immediate tasks/get resolves
    const first = await rpc(key.token, "tasks/get", { taskId: handle.taskId });
    expect(first.body.result).toMatchObject({ resultType: "complete", taskId: handle.taskId });

    const { task, seen } = await untilDone(key.token, handle.taskId);
    expect(task.status).toBe("completed");
    expect(task.result.isError ?? false).toBe(false);
    expect(task.result.structuredContent).toEqual({
      imported: 120,
      skipped: 1,
      errors: [{ row: 121, reason: "email: Invalid email address" }],
    });
    expect(task.result._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();
    expect(seen.at(-1)).toEqual({ done: 121, total: 121, unit: "rows" });
    // progress only goes forward
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.done).toBeGreaterThanOrEqual(seen[i - 1]!.done);
    const stored = await db()
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.tenantId, w.tenantA.id), eq(contacts.firstName, "P7")));
    expect(stored).toHaveLength(1);
  });

  it("tasks/get reads a running job's own counters (done of total) as working progress", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:contacts"]);
    const now = new Date().toISOString();
    const id = `job_${crypto.randomUUID().replaceAll("-", "")}`;
    await db()
      .insert(backgroundJobs)
      .values({
        id,
        tenantId: w.tenantA.id,
        type: "contacts_import",
        status: "running",
        subjectId: null,
        counts: { done: 40, total: 100, imported: 40, skipped: 0 },
        cursor: "40",
        error: null,
        createdByUserId: null,
        input: { csv: csvOf(100, "never"), fileName: "x.csv" },
        result: null,
        owner: taskOwner({
          credential: "api_key",
          tenantId: w.tenantA.id,
          keyId: key.keyId,
          scopes: [],
          agencySession: false,
        }),
        startedAt: now,
        finishedAt: null,
        createdAt: now,
        updatedAt: now,
      });
    const { body } = await rpc(key.token, "tasks/get", { taskId: `${w.tenantA.id}.${id}` });
    expect(body.result).toMatchObject({
      resultType: "complete",
      taskId: `${w.tenantA.id}.${id}`,
      status: "working",
      statusMessage: "40 of 100 rows",
      _meta: { "reputation-ops/progress": { done: 40, total: 100, unit: "rows" } },
    });
    expect(body.result).not.toHaveProperty("result");
  });

  it("a redelivered job message does not count a chunk twice: the cursor moves in the chunk's own batch", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:contacts"]);
    const now = new Date().toISOString();
    const id = `job_${crypto.randomUUID().replaceAll("-", "")}`;
    // a job the queue never hears of: this test is its only consumer
    await db()
      .insert(backgroundJobs)
      .values({
        id,
        tenantId: w.tenantA.id,
        type: "contacts_import",
        status: "queued",
        subjectId: null,
        counts: {},
        cursor: null,
        error: null,
        createdByUserId: null,
        input: { csv: csvOf(250, "redelivered"), fileName: "r.csv" },
        result: null,
        owner: taskOwner({
          credential: "api_key",
          tenantId: w.tenantA.id,
          keyId: key.keyId,
          scopes: [],
          agencySession: false,
        }),
        startedAt: null,
        finishedAt: null,
        createdAt: now,
        updatedAt: now,
      });
    const msg = { type: "contacts_import" as const, tenantId: w.tenantA.id, jobId: id };
    const steps = [];
    // every delivery of the message (first, follow-ups and redeliveries alike) resumes from the stored cursor
    for (let i = 0; i < 6; i++) steps.push((await runContactsImport(env as Env, msg, 1, fetch)).kind);
    expect(steps).toEqual(["continue", "continue", "done", "skipped", "skipped", "skipped"]);
    const job = await db().select().from(backgroundJobs).where(eq(backgroundJobs.id, id)).get();
    expect(job).toMatchObject({ status: "succeeded", counts: { done: 250, total: 250, imported: 250, skipped: 0 } });
    expect(job!.result).toEqual({ imported: 250, skipped: 0, errors: [] });
  });
});

describe("campaign.send-bulk and review.sync as tasks", () => {
  it("campaign.send-bulk: a task whose result is the send's counts", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:campaigns"]);
    const csv = ["email", "bulk.one@example.com", "bulk.two@example.com", "not-an-email"].join("\n");
    const created = await callConfirmed(key.token, "campaign.send-bulk", {
      campaignId,
      csv,
      locationId,
      channel: "email",
    });
    expect(created.body.result, JSON.stringify(created.body)).toMatchObject({ resultType: "task", status: "working" });
    const { task, seen } = await untilDone(key.token, created.body.result.taskId);
    expect(task.status).toBe("completed");
    expect(task.result.structuredContent).toEqual({
      total: 3,
      queued: 0,
      skipped: 2,
      failed: 1,
      errors: [
        { row: 1, reason: "Blocked by policy: NO_CONSENT" },
        { row: 2, reason: "Blocked by policy: NO_CONSENT" },
        { row: 3, reason: "email: Invalid email address" },
      ],
    });
    expect(seen.at(-1)).toEqual({ done: 3, total: 3, unit: "rows" });
  });

  it("review.sync: a task that completes when every queued connection has finished its sync", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:reviews"]);
    const created = await callConfirmed(key.token, "review.sync", {});
    expect(created.body.result, JSON.stringify(created.body)).toMatchObject({ resultType: "task", status: "working" });
    const { task, seen } = await untilDone(key.token, created.body.result.taskId);
    expect(task.status).toBe("completed");
    // the stand-in address refuses connections: both syncs end in an error the result names
    expect(task.result.structuredContent).toMatchObject({
      queued: 2,
      bySite: { google: 1, yelp: 1 },
      outcome: { synced: 0, failed: 2 },
    });
    expect(task.result.structuredContent.outcome.results.map((r: any) => r.siteType).sort()).toEqual([
      "google",
      "yelp",
    ]);
    expect(seen.at(-1)).toEqual({ done: 2, total: 2, unit: "connections" });
  });
});

describe("tenant.export as a task", () => {
  it("a tenant admin's export runs as a task; its result names the download path, which serves the tenant's rows", async () => {
    const admin = w.users.tenantAdmin.token;
    const created = await callConfirmed(admin, "tenant.export", {});
    expect(created.body.result, JSON.stringify(created.body)).toMatchObject({ resultType: "task", status: "working" });
    const { task, seen } = await untilDone(admin, created.body.result.taskId);
    expect(task.status).toBe("completed");
    const result = task.result.structuredContent;
    const jobId = created.body.result.taskId.split(".")[1];
    expect(result).toMatchObject({ exportId: jobId, downloadPath: `/v1/exports/${jobId}/download` });
    expect(result.rows).toBeGreaterThan(0);
    expect(result.tables.locations).toBe(1);
    expect(seen.at(-1)).toEqual({ done: result.rows, total: result.rows, unit: "rows" });
    const file = await workerFetch(`${BASE}${result.downloadPath}`, {
      headers: { authorization: `Bearer ${admin}`, "x-tenant-id": w.tenantA.id },
    });
    expect(file.status).toBe(200);
    const lines = (await file.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(result.rows);
    expect(lines.find((l) => l.table === "locations").row.id).toBe(locationId);
    for (const l of lines) expect(l.row.tenantId).toBe(w.tenantA.id);
  });

  it("a manager, and an API key even with every scope, cannot start an export", async () => {
    const manager = await rpc(w.users.manager.token, "tools/call", { name: "tenant.export", arguments: {} });
    expect(manager.body.error?.code ?? manager.body.result?.isError).toBeTruthy();
    expect(manager.body.result?.taskId).toBeUndefined();
    const key = mintTestKey(w.tenantA.id, [
      "read:contacts",
      "read:reviews",
      "read:feedback",
      "read:surveys",
      "read:campaigns",
      "read:locations",
    ]);
    const byKey = await callConfirmed(key.token, "tenant.export", {});
    // not offered to keys: unknown to them, like any tool their credential cannot see
    expect(byKey.body.error?.code ?? byKey.body.result?.isError, JSON.stringify(byKey.body)).toBeTruthy();
    expect(byKey.body.result?.taskId).toBeUndefined();
    const listed = await rpc(key.token, "tools/list", {});
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).not.toContain("tenant.export");
    const jobs = await db()
      .select()
      .from(backgroundJobs)
      .where(and(eq(backgroundJobs.tenantId, w.tenantA.id), eq(backgroundJobs.type, "tenant_export")));
    expect(jobs).toHaveLength(1);
  });
});

describe("clients without the extension keep the synchronous answer", () => {
  it("the same tool call without the extension answers the tool's result itself, no task", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:contacts"]);
    const { body } = await callConfirmed(key.token, "contact.import-csv", { csv: csvOf(3, "sync.import") }, {});
    expect(body.result.resultType).toBe("complete");
    expect(body.result).not.toHaveProperty("taskId");
    expect(body.result.structuredContent).toEqual({ imported: 3, skipped: 0, errors: [] });
  });

  it("tools that are not long jobs never answer with a task, even to a client with the extension", async () => {
    const key = mintTestKey(w.tenantA.id, ["read:locations"]);
    // a 2025-11-25-style `task` param changes nothing: creating a task is the server's decision (SEP-2663)
    const { body } = await rpc(key.token, "tools/call", { name: "location.list", arguments: {}, task: { ttl: 60000 } });
    expect(body.result.resultType).toBe("complete");
    expect(body.result).not.toHaveProperty("taskId");
    expect(Array.isArray(body.result.structuredContent.data)).toBe(true);
  });

  it("tasks/get and tasks/cancel without the extension: -32021 naming it; tasks/result and tasks/list do not exist (-32601)", async () => {
    const key = mintTestKey(w.tenantA.id, ["write:contacts"]);
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const { body } = await rpc(key.token, method, { taskId: `${w.tenantA.id}.job_x` }, {});
      expect(body.error?.code, method).toBe(-32021);
      expect(body.error.data.requiredCapabilities.extensions[TASKS]).toEqual({});
    }
    for (const method of ["tasks/result", "tasks/list"]) {
      const { body } = await rpc(key.token, method, method === "tasks/list" ? {} : { taskId: "x" });
      expect(body.error?.code, method).toBe(-32601);
    }
  });
});

describe("who sees a task", () => {
  let taskId: string;
  let owner: { token: string; keyId: string };
  beforeAll(async () => {
    owner = mintTestKey(w.tenantA.id, ["write:contacts"]);
    const created = await callConfirmed(owner.token, "contact.import-csv", { csv: csvOf(2, "scoped") });
    taskId = created.body.result.taskId;
    await untilDone(owner.token, taskId);
  });

  it("another tenant's key (on another shard), and another key of the same tenant, get -32602 not found", async () => {
    const other = mintTestKey(w.tenantB.id, ["write:contacts"]);
    const sibling = mintTestKey(w.tenantA.id, ["write:contacts"]);
    for (const k of [other, sibling]) {
      for (const method of ["tasks/get", "tasks/cancel"]) {
        const { body } = await rpc(k.token, method, { taskId });
        expect(body.error?.code, method).toBe(-32602);
        expect(body.error.message).toMatch(/not found/i);
      }
    }
    // the same job id named under tenant B: not found either (the tenant comes from the credential, not the id)
    const { body } = await rpc(other.token, "tasks/get", { taskId: taskId.replace(w.tenantA.id, w.tenantB.id) });
    expect(body.error?.code).toBe(-32602);
    // (the tenant's own jobs: the shard holds other test files' tenants, whose jobs run beside these)
    expect(
      await shardOf(w.tenantB).select().from(backgroundJobs).where(eq(backgroundJobs.tenantId, w.tenantB.id)),
    ).toEqual([]);
  });

  it("a read-only key cannot start a write task: the tool is refused and no job is stored", async () => {
    const reader = mintTestKey(w.tenantA.id, ["read:contacts", "read:campaigns", "read:reviews"]);
    const jobsOfA = () => db().select().from(backgroundJobs).where(eq(backgroundJobs.tenantId, w.tenantA.id));
    const before = (await jobsOfA()).length;
    for (const [name, args] of [
      ["contact.import-csv", { csv: csvOf(1, "ro") }],
      ["campaign.send-bulk", { campaignId, csv: "email\na@b.co", locationId, channel: "email" }],
      ["review.sync", {}],
    ] as const) {
      const { body } = await rpc(reader.token, "tools/call", { name, arguments: args });
      expect(body.result?.isError, name).toBe(true);
      expect(body.result).not.toHaveProperty("taskId");
      expect(body.result.content[0].text).toContain("needs the scope");
    }
    expect((await jobsOfA()).length).toBe(before);
  });

  it("a tenant on shard 1 runs its task on its own shard", async () => {
    const keyB = mintTestKey(w.tenantB.id, ["write:contacts"]);
    const created = await callConfirmed(keyB.token, "contact.import-csv", { csv: csvOf(3, "shard.one") });
    expect(created.body.result.taskId.startsWith(`${w.tenantB.id}.job_`)).toBe(true);
    const { task } = await untilDone(keyB.token, created.body.result.taskId);
    expect(task.result.structuredContent).toEqual({ imported: 3, skipped: 0, errors: [] });
    const jobId = created.body.result.taskId.split(".")[1];
    expect(await shardOf(w.tenantB).select().from(backgroundJobs).where(eq(backgroundJobs.id, jobId))).toHaveLength(1);
    expect(await db().select().from(backgroundJobs).where(eq(backgroundJobs.id, jobId))).toHaveLength(0);
  });

  it("tasks/update is acknowledged for the caller's task (no job asks for input) and not found for others", async () => {
    const ack = await rpc(owner.token, "tasks/update", { taskId, inputResponses: { nothing: { action: "accept" } } });
    expect(ack.body.result.resultType).toBe("complete");
    const sibling = mintTestKey(w.tenantA.id, ["write:contacts"]);
    const other = await rpc(sibling.token, "tasks/update", { taskId, inputResponses: {} });
    expect(other.body.error?.code).toBe(-32602);
  });

  it("at /mcp/readonly, which serves no write tool, the task of a write tool is not found", async () => {
    const res = await workerFetch(`${BASE}/mcp/readonly`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${owner.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": "tasks/get",
        "mcp-name": taskId,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 99,
        method: "tasks/get",
        params: {
          taskId,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": WITH_TASKS,
          },
        },
      }),
    });
    expect(((await res.json()) as any).error?.code).toBe(-32602);
  });

  it("signed-in users: the task is the user's own; the role decides which long jobs a user may start", async () => {
    const user = w.users.tenantUser.token;
    const created = await callConfirmed(user, "contact.import-csv", { csv: csvOf(2, "by.user") });
    expect(created.body.result, JSON.stringify(created.body)).toMatchObject({ resultType: "task" });
    const id = created.body.result.taskId;
    expect((await untilDone(user, id)).task.status).toBe("completed");
    // another user of the same tenant (a manager) does not see it
    expect((await rpc(w.users.manager.token, "tasks/get", { taskId: id })).body.error?.code).toBe(-32602);
    // a tenant_user may not send a campaign (manager+: write:campaigns), a viewer may not import
    const send = await rpc(user, "tools/call", {
      name: "campaign.send-bulk",
      arguments: { campaignId, csv: "email\na@b.co", locationId, channel: "email" },
    });
    expect(send.body.error?.code ?? send.body.result?.isError).toBeTruthy();
    const viewer = await rpc(w.users.viewer.token, "tools/call", {
      name: "contact.import-csv",
      arguments: { csv: csvOf(1, "viewer") },
    });
    expect(viewer.body.error?.code ?? viewer.body.result?.isError).toBeTruthy();
    expect(viewer.body.result?.taskId).toBeUndefined();
  });

  it("tasks/cancel answers an empty ack, also for a finished task (which keeps its result)", async () => {
    const { body } = await rpc(owner.token, "tasks/cancel", { taskId });
    expect(body.result.resultType).toBe("complete");
    for (const k of ["taskId", "status", "result", "error"]) expect(body.result, k).not.toHaveProperty(k);
    const after = await rpc(owner.token, "tasks/get", { taskId });
    expect(after.body.result.status).toBe("completed");
  });

  it("tasks/cancel of a running job: the job stops at its next step and the task reads cancelled", async () => {
    const now = new Date().toISOString();
    const id = `job_${crypto.randomUUID().replaceAll("-", "")}`;
    await db()
      .insert(backgroundJobs)
      .values({
        id,
        tenantId: w.tenantA.id,
        type: "contacts_import",
        status: "running",
        subjectId: null,
        counts: { done: 100, total: 250 },
        cursor: "100",
        error: null,
        createdByUserId: null,
        input: { csv: csvOf(250, "cancelled"), fileName: "c.csv" },
        result: null,
        owner: taskOwner({
          credential: "api_key",
          tenantId: w.tenantA.id,
          keyId: owner.keyId,
          scopes: [],
          agencySession: false,
        }),
        startedAt: now,
        finishedAt: null,
        createdAt: now,
        updatedAt: now,
      });
    const ack = await rpc(owner.token, "tasks/cancel", { taskId: `${w.tenantA.id}.${id}` });
    expect(ack.body.result.resultType).toBe("complete");
    const msg = { type: "contacts_import" as const, tenantId: w.tenantA.id, jobId: id };
    expect((await runContactsImport(env as Env, msg, 1, fetch)).kind).toBe("skipped");
    const { body } = await rpc(owner.token, "tasks/get", { taskId: `${w.tenantA.id}.${id}` });
    expect(body.result).toMatchObject({ status: "cancelled" });
    expect(body.result).not.toHaveProperty("result");
    const job = await db().select().from(backgroundJobs).where(eq(backgroundJobs.id, id)).get();
    expect(job).toMatchObject({ status: "cancelled", counts: { done: 100, total: 250 } });
  });
});

describe("a finished task's retention (docs/automation.md, Retention of finished jobs)", () => {
  it("keeps its result while its CSV input is cleared after 7 days; after 30 days the task is not found", async () => {
    const keyB = mintTestKey(w.tenantB.id, ["write:contacts"]);
    const created = await callConfirmed(keyB.token, "contact.import-csv", { csv: csvOf(2, "retained") });
    const taskId = created.body.result.taskId as string;
    const { task } = await untilDone(keyB.token, taskId);
    const jobId = taskId.split(".")[1]!;
    const shard = shardOf(w.tenantB);
    const stored = () => shard.select().from(backgroundJobs).where(eq(backgroundJobs.id, jobId)).get();
    expect((await stored())?.input?.csv).toBe(csvOf(2, "retained"));
    const finishedDaysAgo = (days: number) =>
      shard
        .update(backgroundJobs)
        .set({ finishedAt: new Date(Date.now() - days * 24 * 3600 * 1000).toISOString() })
        .where(eq(backgroundJobs.id, jobId));
    const sweep = SWEEPS[CRONS.daily].find((s) => s.name === "purge-finished-jobs")!;

    await finishedDaysAgo(8);
    await sweep.run(env as Env, new Date());
    expect((await stored())?.input).toBeNull();
    const later = await rpc(keyB.token, "tasks/get", { taskId });
    expect(later.body.result).toMatchObject({ status: "completed", result: task.result });

    await finishedDaysAgo(31);
    await sweep.run(env as Env, new Date());
    expect(await stored()).toBeUndefined();
    const gone = await rpc(keyB.token, "tasks/get", { taskId });
    expect(gone.body.error?.code).toBe(-32602);
    expect(gone.body.error.message).toMatch(/not found/i);
  });
});

import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { IdParam } from "../../src/lib/openapi";
import { defineOperation, fileOutput, noContent, type Operation, reply, upload } from "../../src/lib/operation";
import { callOperation, type OperationCall, routeConfigOf } from "../../src/lib/operation-route";
import { OPERATIONS } from "../../src/wiring";
import { createWorld, type World } from "../helpers/seed";
import { mintTestKey } from "../mcp/helpers";

// Every kind of operation the catalogue declares (src/lib/operation.ts), served by its REST door
// (src/lib/operation-route.ts) in a real app, and called through the console's door (callOperation): the
// four kinds of caller (tenant, platform, agency, the user), path, query, header, JSON, form and upload
// inputs, a body cap, 200/201/202 + Location/204 answers and a file. These are test operations on
// their own paths; the app is the real one (createApp) with them added to the catalogue.

const Item = z.object({ id: z.string(), note: z.string().nullable(), key: z.string().nullable() });

const upsert = defineOperation({
  name: "test-thing.upsert",
  operationId: "upsertTestThing",
  method: "put",
  path: "/v1/test-things/{id}",
  tags: ["Test"],
  summary: "Create (201) or replace (200) a thing",
  request: {
    params: IdParam,
    headers: z.object({ "idempotency-key": z.string().min(1).max(64).optional() }),
    body: z.object({ note: z.string().max(20).nullable(), created: z.boolean() }),
  },
  status: 201,
  statuses: { 200: "Replaced" },
  responseHeaders: z.object({ Location: z.string() }),
  output: Item,
  scopes: [],
  minRole: "manager",
  access: "write",
  console: {},
  handler: async (_ctx, i) => {
    const body = { id: i.id, note: i.note, key: i["idempotency-key"] ?? null };
    return reply(body, { status: i.created ? 201 : 200, headers: { location: `/v1/test-things/${i.id}` } });
  },
});

const search = defineOperation({
  name: "test-thing.search",
  operationId: "searchTestThings",
  method: "get",
  path: "/v1/test-things",
  tags: ["Test"],
  summary: "Search things",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(5).default(2),
      active: z.enum(["true", "false"]).optional(),
    }),
  },
  output: z.object({ limit: z.number(), active: z.boolean().nullable(), tenantId: z.string() }),
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx, i) => ({
    limit: i.limit,
    active: i.active === undefined ? null : String(i.active) === "true",
    tenantId: ctx.tenantId,
  }),
});

const remove = defineOperation({
  name: "test-thing.delete",
  operationId: "deleteTestThing",
  method: "delete",
  path: "/v1/test-things/{id}",
  tags: ["Test"],
  summary: "Delete a thing",
  request: { params: IdParam },
  status: 204,
  output: noContent,
  scopes: [],
  minRole: "tenant_user",
  access: "write",
  handler: async () => undefined,
});

const csv = defineOperation({
  name: "test-thing.export",
  operationId: "exportTestThings",
  method: "get",
  path: "/v1/test-things-export",
  tags: ["Test"],
  summary: "Things as CSV",
  output: fileOutput({ mediaType: "text/csv", description: "CSV", contentType: "text/csv; charset=utf-8" }),
  scopes: [],
  access: "read",
  handler: async () => ({ body: "id\r\na\r\n", fileName: "things.csv" }),
});

// a stream: its media type's own headers (an event stream is not cached)
const events = defineOperation({
  name: "test-thing.events",
  operationId: "streamTestThings",
  method: "post",
  path: "/v1/test-things-events",
  tags: ["Test"],
  summary: "An event stream",
  output: fileOutput({ mediaType: "text/event-stream", description: "SSE", headers: { "cache-control": "no-cache" } }),
  scopes: [],
  access: "read",
  handler: async () => ({ body: new Blob(["event: done\ndata: {}\n\n"]).stream() }),
});

const form = defineOperation({
  name: "test-thing.form",
  operationId: "uploadTestThingForm",
  method: "post",
  path: "/v1/test-things-form",
  tags: ["Test"],
  summary: "A multipart form with a file",
  request: {
    form: z.object({ file: z.instanceof(File), label: z.string().max(20).optional() }),
    bodyLimit: { bytes: 2048, message: "At most 2 KB; nothing was read" },
  },
  output: z.object({ text: z.string(), label: z.string().nullable() }),
  scopes: [],
  access: "write",
  minRole: "tenant_user",
  handler: async (_ctx, i) => ({ text: await i.file.text(), label: i.label ?? null }),
});

const uploadOp = defineOperation({
  name: "test-thing.upload",
  operationId: "uploadTestThingText",
  method: "post",
  path: "/v1/test-things-upload",
  tags: ["Test"],
  summary: "A text/csv body, or multipart with a file",
  request: {
    upload: upload({
      content: { "text/csv": { schema: z.string() } },
      input: z.object({ csv: z.string() }),
      read: async (req) => ({ csv: await req.text() }),
    }),
  },
  output: z.object({ rows: z.number().int() }),
  scopes: [],
  access: "write",
  handler: async (_ctx, i) => ({ rows: i.csv.trim().split(/\r?\n/).length - 1 }),
});

// a JSON body of free keys (a record, as an agent's input): whole under one input field, apart from the path's
const run = defineOperation({
  name: "test-thing.run",
  operationId: "runTestThing",
  method: "post",
  path: "/v1/test-things/{name}/run",
  tags: ["Test"],
  summary: "A record body under the input field `input`",
  request: {
    params: z.object({ name: z.string().min(1).max(64) }),
    body: z.record(z.string(), z.unknown()),
    bodyField: "input" as const,
  },
  output: z.object({ name: z.string(), input: z.record(z.string(), z.unknown()) }),
  scopes: [],
  access: "read",
  console: {},
  handler: async (_ctx, i) => ({ name: i.name, input: i.input }),
});

const platform = defineOperation({
  name: "test-platform.get",
  context: "platform",
  operationId: "getTestPlatform",
  method: "get",
  path: "/admin/test-platform",
  tags: ["Test"],
  summary: "A platform read",
  output: z.object({ actor: z.string() }),
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx) => ({ actor: ctx.actor.type === "user" ? ctx.actor.via : ctx.actor.type }),
});

const agency = defineOperation({
  name: "test-agency.get",
  context: "agency",
  operationId: "getTestAgency",
  method: "get",
  path: "/agency/test-agency",
  tags: ["Test"],
  summary: "An agency read",
  output: z.object({ agencies: z.union([z.literal("all"), z.array(z.string())]) }),
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx) => ({ agencies: ctx.agencies }),
});

const self = defineOperation({
  name: "test-me.get",
  context: "user",
  operationId: "getTestMe",
  method: "get",
  path: "/me/test-me",
  tags: ["Test"],
  summary: "The signed-in user",
  output: z.object({ userId: z.string(), principal: z.string() }),
  scopes: [],
  access: "read",
  console: {},
  handler: async (ctx) => ({ userId: ctx.userId, principal: ctx.principal.userId }),
});

const TEST_OPS: Operation[] = [upsert, search, remove, csv, events, form, uploadOp, run, platform, agency, self];
const app = createApp([...OPERATIONS, ...TEST_OPS]);
// a console page: the same middleware as /v1 (the app's), then the operation called with a request's parts
app.post("/v1/test-console/:op", async (c) => {
  const op = TEST_OPS.find((o) => o.name === c.req.param("op"))!;
  return c.json(await callOperation<object>(c, op, (await c.req.json()) as OperationCall));
});
app.post("/admin/test-console", async (c) => c.json(await callOperation<object>(c, platform)));
// a console page calling an operation of another kind with REST's parts (callOperation), on a path no
// guard of that kind protects: the operation's own guard and context
app.post("/v1/test-call/:op", async (c) => {
  const op = TEST_OPS.find((o) => o.name === c.req.param("op"))!;
  return c.json(await callOperation<object>(c, op));
});

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

async function call(
  method: string,
  path: string,
  o: { who?: keyof World["users"]; token?: string; headers?: Record<string, string>; body?: BodyInit | object } = {},
) {
  const headers: Record<string, string> = { "x-tenant-id": w.tenantA.id, ...o.headers };
  const token = o.token ?? (o.who ? w.users[o.who].token : undefined);
  if (token) headers.authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (o.body instanceof FormData || typeof o.body === "string") body = o.body;
  else if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await app.fetch(
    new Request(`http://localhost${path}`, { method, headers, body }),
    env,
    createExecutionContext(),
  );
  const text = await res.text();
  const json = (res.headers.get("content-type") ?? "").includes("json") && text ? JSON.parse(text) : null;
  return { status: res.status, headers: res.headers, text, body: json };
}

describe("the REST door of each kind of operation", () => {
  it("documents each part: security by kind, headers, form, upload, statuses, response headers, 204 and files", () => {
    const route = (op: Operation) => routeConfigOf(op) as unknown as Record<string, any>;
    expect(route(upsert).security).toEqual([{ bearerAuth: [], tenantHeader: [] }]);
    expect(route(platform).security).toEqual([{ bearerAuth: [] }]);
    expect(route(self).security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(route(upsert).responses)).toEqual(["200", "201"]);
    expect(route(upsert).responses[201].headers).toBeDefined();
    expect(route(upsert).request.headers).toBeDefined();
    expect(Object.keys(route(form).request.body.content)).toEqual(["multipart/form-data"]);
    expect(route(form).middleware).toHaveLength(2);
    expect(Object.keys(route(uploadOp).request.body.content)).toEqual(["text/csv"]);
    expect(route(remove).responses[204]).toEqual({ description: "No Content" });
    expect(Object.keys(route(csv).responses[200].content)).toEqual(["text/csv"]);
  });

  it("a tenant write: path, header and body in one input; the role checked; the reply's own status and Location", async () => {
    const created = await call("PUT", "/v1/test-things/t1", {
      who: "manager",
      headers: { "idempotency-key": "k-1" },
      body: { note: "hi", created: true },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: "t1", note: "hi", key: "k-1" });
    expect(created.headers.get("location")).toBe("/v1/test-things/t1");
    const replaced = await call("PUT", "/v1/test-things/t1", { who: "manager", body: { note: null, created: false } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ id: "t1", note: null, key: null });
    const viewer = await call("PUT", "/v1/test-things/t1", { who: "viewer", body: { note: null, created: false } });
    expect(viewer.status).toBe(403);
    const bad = await call("PUT", "/v1/test-things/t1", { who: "manager", body: { note: 5, created: false } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
  });

  it("a tenant read: the query's coercions, the tenant from the access, never from the input", async () => {
    const res = await call("GET", "/v1/test-things?limit=3&active=true", { who: "viewer" });
    expect(res.body).toEqual({ limit: 3, active: true, tenantId: w.tenantA.id });
    expect((await call("GET", "/v1/test-things", { who: "tenantBAdmin" })).status).toBe(403);
  });

  it("an API key needs a scope that admits the path (none does for these): 403 before the handler", async () => {
    const { token } = mintTestKey(w.tenantA.id, ["read:reviews"]);
    expect((await call("GET", "/v1/test-things", { token })).status).toBe(403);
  });

  it("204 answers no body; a file answers its media type as an attachment", async () => {
    const gone = await call("DELETE", "/v1/test-things/t1", { who: "tenantUser" });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe("");
    const file = await call("GET", "/v1/test-things-export", { who: "viewer" });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="things.csv"');
    expect(file.text).toBe("id\r\na\r\n");
    const stream = await call("POST", "/v1/test-things-events", { who: "viewer" });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect(stream.headers.get("cache-control")).toBe("no-cache");
    expect(stream.headers.get("content-disposition")).toBeNull();
    expect(stream.text).toBe("event: done\ndata: {}\n\n");
  });

  it("a multipart form (a File in the input) under its body cap; an upload read by the operation's reader", async () => {
    const fd = new FormData();
    fd.set("file", new File(["a,b\n1,2\n"], "x.csv", { type: "text/csv" }));
    fd.set("label", "first");
    const res = await call("POST", "/v1/test-things-form", { who: "tenantUser", body: fd });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ text: "a,b\n1,2\n", label: "first" });
    const big = new FormData();
    big.set("file", new File(["x".repeat(4096)], "big.csv"));
    const tooBig = await call("POST", "/v1/test-things-form", { who: "tenantUser", body: big });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error).toBe("At most 2 KB; nothing was read");
    const text = await call("POST", "/v1/test-things-upload", {
      who: "tenantUser",
      headers: { "content-type": "text/csv" },
      body: "a\n1\n2\n",
    });
    expect(text.body).toEqual({ rows: 2 });
  });

  it("a body of free keys comes whole under its input field: a body key never stands in for a path parameter", async () => {
    expect(Object.keys((routeConfigOf(run) as any).request.body.content)).toEqual(["application/json"]);
    const res = await call("POST", "/v1/test-things/t1/run", { who: "viewer", body: { name: "other", n: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "t1", input: { name: "other", n: 1 } });
    const bad = await call("POST", "/v1/test-things/t1/run", { who: "viewer", body: [1] });
    expect(bad.status).toBe(400);
    const viaConsole = await call("POST", "/v1/test-console/test-thing.run", {
      who: "viewer",
      body: { params: { name: "t2" }, body: { name: "other" } },
    });
    expect(viaConsole.body).toEqual({ name: "t2", input: { name: "other" } });
  });

  it("platform, agency and user operations get their own context behind their own guard", async () => {
    expect((await call("GET", "/admin/test-platform", { who: "platformAdmin" })).body).toEqual({ actor: "platform" });
    expect((await call("GET", "/admin/test-platform", { who: "tenantAdmin" })).status).toBe(403);
    expect((await call("GET", "/agency/test-agency", { who: "agencyAdmin" })).body).toEqual({
      agencies: [w.agencyA.id],
    });
    expect((await call("GET", "/agency/test-agency", { who: "platformAdmin" })).body).toEqual({ agencies: "all" });
    expect((await call("GET", "/agency/test-agency", { who: "manager" })).status).toBe(403);
    expect((await call("GET", "/me/test-me", { who: "viewer" })).body).toEqual({
      userId: w.users.viewer.id,
      principal: w.users.viewer.id,
    });
    const { token } = mintTestKey(w.tenantA.id, ["read:reviews"]);
    expect((await call("GET", "/me/test-me", { token })).status).toBe(401);
  });
});

describe("the console's door: callOperation", () => {
  it("checks the role as REST does, validates with the operation's REST schemas, answers the body", async () => {
    const ok = await call("POST", "/v1/test-console/test-thing.upsert", {
      who: "manager",
      body: { params: { id: "c1" }, body: { note: "from a form", created: true } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: "c1", note: "from a form", key: null });
    const viewer = await call("POST", "/v1/test-console/test-thing.upsert", {
      who: "viewer",
      body: { params: { id: "c1" }, body: { note: null, created: true } },
    });
    expect(viewer.status).toBe(403);
    expect(viewer.body.error).toBe("Requires role manager or higher");
    const bad = await call("POST", "/v1/test-console/test-thing.upsert", {
      who: "manager",
      body: { params: { id: "c1" }, body: { note: "x".repeat(21), created: true } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toBe("note");
  });

  it("takes a form's text as REST's query takes it: coerced by the schema, an empty field left out", async () => {
    const res = await call("POST", "/v1/test-console/test-thing.search", {
      who: "viewer",
      body: { query: { limit: "4", active: "false" } },
    });
    expect(res.body).toEqual({ limit: 4, active: false, tenantId: w.tenantA.id });
    const empty = await call("POST", "/v1/test-console/test-thing.search", {
      who: "viewer",
      body: { query: { limit: "" } },
    });
    expect(empty.body).toEqual({ limit: 2, active: null, tenantId: w.tenantA.id });
  });

  it("refuses an operation without a console door, and a platform operation to anyone but a platform admin", async () => {
    const noDoor = await call("POST", "/v1/test-console/test-thing.delete", {
      who: "tenantAdmin",
      body: { params: { id: "x" } },
    });
    expect(noDoor.status).toBe(500);
    expect((await call("POST", "/admin/test-console", { who: "platformAdmin" })).body).toEqual({ actor: "platform" });
    expect((await call("POST", "/admin/test-console", { who: "agencyAdmin" })).status).toBe(403);
  });
});

describe("the console's door with REST's parts: callOperation", () => {
  it("runs a platform, agency or user operation behind its kind's guard, with the context of its kind", async () => {
    const platformCall = await call("POST", "/v1/test-call/test-platform.get", { who: "platformAdmin" });
    expect(platformCall.body).toEqual({ actor: "platform" });
    const notPlatform = await call("POST", "/v1/test-call/test-platform.get", { who: "tenantAdmin" });
    expect(notPlatform.status).toBe(403);
    expect(notPlatform.body.error).toBe("Platform admin only");
    const agencyCall = await call("POST", "/v1/test-call/test-agency.get", { who: "agencyAdmin" });
    expect(agencyCall.body).toEqual({ agencies: [w.agencyA.id] });
    const notAgency = await call("POST", "/v1/test-call/test-agency.get", { who: "manager" });
    expect(notAgency.status).toBe(403);
    expect(notAgency.body.error).toBe("Agency admin only");
    const me = await call("POST", "/v1/test-call/test-me.get", { who: "viewer" });
    expect(me.body).toEqual({ userId: w.users.viewer.id, principal: w.users.viewer.id });
  });
});

describe("a declaration's own rules", () => {
  const base = { name: "x.y", summary: "x", output: z.object({}), scopes: [] as string[], access: "read" as const };
  it.each([
    [
      "REST parts without a path",
      { ...base, operationId: "getX", method: "get" },
      /operationId, method and path together/,
    ],
    [
      "a /v1 path for a platform operation",
      { ...base, context: "platform", operationId: "getX", method: "get", path: "/v1/x" },
      /must match/,
    ],
    ["a role outside a tenant", { ...base, context: "platform", minRole: "manager", mcp: { title: "x" } }, /minRole/],
    ["204 with an output", { ...base, operationId: "getX", method: "get", path: "/v1/x", status: 204 }, /204/],
    [
      "a file over MCP",
      {
        ...base,
        output: fileOutput({ mediaType: "text/csv", description: "CSV" }),
        scopes: ["read:x"],
        mcp: { title: "x" },
      },
      /REST only/,
    ],
    ["no door at all", { ...base, input: z.object({}) }, /at least one door/],
    ["a tenant MCP tool no scope admits", { ...base, input: z.object({}), mcp: { title: "x" } }, /needs the scopes/],
  ])("refuses %s", (_why, def, message) => {
    expect(() => defineOperation(Object.assign({ handler: async () => ({}) }, def) as never)).toThrow(message);
  });
});

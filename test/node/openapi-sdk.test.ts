import { describe, expect, it } from "vitest";
import { API_TAGS } from "../../src/api-tags";
import { createApp, openApiConfig, serverDescription } from "../../src/app";

// What SDK generators need from the document (docs/api-lint.md): a stable method name per operation,
// a server, one declared tag per operation (one client class per module), and security on every operation.
const doc = createApp().getOpenAPI31Document(openApiConfig("https://api.example.test", "production"));
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
type Op = { operationId?: string; tags?: string[]; security?: unknown[] };
const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({
    where: `${method.toUpperCase()} ${path}`,
    op: (item as Record<string, Op>)[method]!,
  })),
);

/**
 * The verbs an operationId may start with (docs/api-lint.md): CRUD first, then the named actions of
 * action sub-paths (POST /v1/responses/{id}/publish -> publishResponse). A new verb is a deliberate
 * addition here and in the doc, so SDK method names stay a small, predictable vocabulary.
 */
const OPERATION_VERBS = [
  "list",
  "get",
  "create",
  "update",
  "delete",
  "replace",
  "add",
  "remove",
  "accept",
  "activate",
  "apply",
  "approve",
  "archive",
  "assign",
  "authorize",
  "bootstrap",
  "cancel",
  "chat",
  "check",
  "complete",
  "deactivate",
  "erase",
  "escalate",
  "exchange",
  "export",
  "follow",
  "grant",
  "import",
  "ingest",
  "invite",
  "login",
  "logout",
  "move",
  "pause",
  "preview",
  "publish",
  "rebuild",
  "receive",
  "recompute",
  "record",
  "redeliver",
  "refresh",
  "reject",
  "replay",
  "request",
  "reset",
  "resubscribe",
  "resume",
  "revoke",
  "rotate",
  "run",
  "send",
  "snooze",
  "start",
  "submit",
  "suppress",
  "sync",
  "test",
  "unsubscribe",
  "unsuppress",
  "verify",
];

describe("OpenAPI operationIds (SDK method names)", () => {
  it("covers every operation of the document", () => {
    expect(operations.length).toBeGreaterThan(250);
    expect(operations.filter((o) => !o.op.operationId).map((o) => o.where)).toEqual([]);
  });

  it("are unique across the document", () => {
    const seen = new Map<string, string>();
    const dups: string[] = [];
    for (const { where, op } of operations) {
      const prior = seen.get(op.operationId!);
      if (prior) dups.push(`${op.operationId}: ${prior} and ${where}`);
      seen.set(op.operationId!, where);
    }
    expect(dups).toEqual([]);
  });

  it("are camelCase and start with an allowed verb", () => {
    const bad = operations
      .map(({ where, op }) => ({ where, id: op.operationId ?? "" }))
      .filter(
        ({ id }) => !/^[a-z]+(?:[A-Z0-9][a-z0-9]*)*$/.test(id) || !OPERATION_VERBS.includes(id.match(/^[a-z]+/)![0]),
      )
      .map(({ where, id }) => `${where}: ${id}`);
    expect(bad).toEqual([]);
  });

  it("follow the naming rule on the common shapes", () => {
    const id = (where: string) => operations.find((o) => o.where === where)?.op.operationId;
    expect({
      list: id("GET /v1/contacts"),
      get: id("GET /v1/contacts/{id}"),
      create: id("POST /v1/contacts"),
      update: id("PATCH /v1/campaigns/{id}"),
      delete: id("DELETE /v1/webhooks/{id}"),
      action: id("POST /v1/responses/{id}/publish"),
      nested: id("GET /v1/campaigns/{id}/solicitations"),
    }).toEqual({
      list: "listContacts",
      get: "getContact",
      create: "createContact",
      update: "updateCampaign",
      delete: "deleteWebhook",
      action: "publishResponse",
      nested: "listCampaignSolicitations",
    });
  });
});

describe("OpenAPI document for SDK generators", () => {
  it("names this deployment's base URL as its server (the served document: test/foundation/openapi.test.ts)", () => {
    expect(doc.servers).toEqual([
      {
        url: "https://api.example.test",
        description: "The production deployment (PUBLIC_BASE_URL)",
        "x-internal": false,
      },
    ]);
    // wrangler dev's "development" is called local, a term inventory tools (OWASP API9) recognise
    expect(serverDescription("development")).toBe("The local development deployment (PUBLIC_BASE_URL)");
  });

  it("lists each tag once with a description, and every listed tag is used", () => {
    const names = (doc.tags ?? []).map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect((doc.tags ?? []).filter((t) => !t.description).map((t) => t.name)).toEqual([]);
    const used = new Set(operations.flatMap((o) => o.op.tags ?? []));
    expect(names.filter((n) => !used.has(n))).toEqual([]);
    expect(names).toEqual(API_TAGS.map((t) => t.name));
  });

  it("gives every operation exactly one listed tag", () => {
    const listed = new Set((doc.tags ?? []).map((t) => t.name));
    const bad = operations
      .filter((o) => o.op.tags?.length !== 1 || !listed.has(o.op.tags[0]!))
      .map((o) => `${o.where}: ${o.op.tags}`);
    expect(bad).toEqual([]);
  });

  it("states security on every operation: the public ones say security: [] explicitly", () => {
    expect(operations.filter((o) => !Array.isArray(o.op.security)).map((o) => o.where)).toEqual([]);
    const publicOps = operations.filter((o) => o.op.security!.length === 0).map((o) => o.where);
    // credential-free by design: token pages, login flows, SAML, provider callbacks, probes, catalogs, the reference
    expect(publicOps).toEqual(
      expect.arrayContaining([
        "GET /health",
        "POST /auth/login",
        "POST /v1/f/{token}",
        "POST /webhooks/providers/{provider}",
        "GET /docs/openapi.json",
      ]),
    );
    expect(publicOps.filter((w) => / \/v1\/(?!f\/|r\/)/.test(w))).toEqual([]);
  });
});

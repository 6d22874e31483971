import { beforeAll, describe, expect, it } from "vitest";
import { API_SCOPES } from "../../src/modules/identity/scopes";
import { request, useTransport } from "../helpers/http";
import { isTenantScoped, type OperationRef, operations, pathParams } from "../helpers/openapi";
import { createWorld, type World } from "../helpers/seed";
import { jsonBodySchema, validValue } from "./schema-values";
import { tenantSnapshot } from "./snapshot";
import { seedTenantB, UNKNOWN_ID } from "./tenant-b";

// OWASP API1 (BOLA), generated from the OpenAPI document: every tenant-scoped operation with an id
// in its path, called by every credential of tenant A against tenant B's real ids.

let w: World;
let idOf: Awaited<ReturnType<typeof seedTenantB>>;
let apiKey: string;

/** Path parameters that name something global, not a tenant's resource: nothing of B's to reach. */
const GLOBAL_PATHS: Record<string, string> = {
  "/v1/agents/{name}/run": "an agent's name is the same in every tenant; what it reads is the caller's tenant",
};

/** Every /v1 operation behind bearer + x-tenant-id with at least one path parameter naming a tenant's resource. */
const idRoutes = (): OperationRef[] =>
  operations().filter(
    (o) => o.path.startsWith("/v1/") && isTenantScoped(o.op) && pathParams(o.op).length > 0 && !GLOBAL_PATHS[o.path],
  );

const concrete = (o: OperationRef) =>
  o.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(idOf(o.path, p)));
/** Bodies the generator cannot guess, so that validation passes and the id lookup decides. */
const BODY_OVERRIDES: Record<string, () => unknown> = {
  "post /v1/recommendations/{id}/snooze": () => ({ until: new Date(Date.now() + 86_400_000).toISOString() }),
  "post /v1/reviews/{reviewId}/responses": () => ({ text: "A reply" }),
  "post /v1/campaigns/{id}/send-bulk": () => {
    const form = new FormData();
    form.set("contacts", new File(["email\nsomeone@example.test\n"], "contacts.csv", { type: "text/csv" }));
    return form;
  },
};

const bodyOf = (o: OperationRef) => {
  const override = BODY_OVERRIDES[`${o.method} ${o.path}`];
  if (override) return override();
  const schema = jsonBodySchema(o.op);
  return schema ? (validValue(schema) ?? {}) : undefined;
};

/** Tenant A's credentials: each role's session, an admin of A's agency, another agency's admin, an API key. */
const credentialsOfA = () => ({
  tenantAdmin: w.users.tenantAdmin.token,
  manager: w.users.manager.token,
  tenantUser: w.users.tenantUser.token,
  viewer: w.users.viewer.token,
  agencyAdminOfA: w.users.agencyAdmin.token,
  apiKeyOfA: apiKey,
});

/**
 * B's snapshot once its own background work (events delivered after the queue's 1 s batch window,
 * rollups) has landed: two reads 1.5 s apart agree.
 */
async function settledSnapshot(tenantId: string) {
  let last = await tenantSnapshot(tenantId);
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 1_500));
    const next = await tenantSnapshot(tenantId);
    if (next.digest === last.digest) return next;
    last = next;
  }
  throw new Error("tenant B's rows never settled");
}

const LAYOUTS = [
  { shardA: 0, shardB: 1 },
  { shardA: 1, shardB: 1 },
];

describe.each(LAYOUTS)(
  "tenant isolation matrix (from the OpenAPI document), A on shard $shardA, B on shard $shardB",
  (layout) => {
    beforeAll(async () => {
      useTransport("direct");
      // tenants on different shards, then on the same non-control shard: a request routed to the wrong
      // shard finds nothing, or writes where the snapshot (every shard) sees it
      w = await createWorld(layout);
      idOf = await seedTenantB(w);
      const key = await w.as("tenantAdmin").post("/v1/api-keys", { name: "all scopes", scopes: [...API_SCOPES] });
      expect(key.status).toBe(201);
      apiKey = key.body.key;
    }, 60_000);

    it("denies every tenant-A credential every tenant-B id, and leaves B's data untouched", async () => {
      const routes = idRoutes();
      const started = Date.now();
      const before = await settledSnapshot(w.tenantB.id);
      const failures: string[] = [];
      const covered = new Set<string>();
      let requests = 0;
      for (const o of routes) {
        const path = concrete(o);
        const name = `${o.method.toUpperCase()} ${o.path}`;
        for (const [who, token] of Object.entries(credentialsOfA())) {
          try {
            // 1) A's own tenant header, B's id in the path: the row does not exist for A -> 404, or 403
            //    when the role (or the key's scopes) does not reach the route at all (decisions.md)
            const own = await request(o.method, path, { token, tenantId: w.tenantA.id, body: bodyOf(o) });
            // 2) B's tenant header: A's credential does not reach tenant B -> 403
            const foreign = await request(o.method, path, { token, tenantId: w.tenantB.id, body: bodyOf(o) });
            requests += 2;
            const fullAdmin = who === "tenantAdmin" || who === "agencyAdminOfA";
            const notFound = own.status === 404 && own.body?.code === "NOT_FOUND";
            const ownOk = notFound || (!fullAdmin && own.status === 403 && own.body?.code === "FORBIDDEN");
            if (!ownOk) failures.push(`${name} as ${who} (A header): ${own.status} ${own.text.slice(0, 160)}`);
            if (foreign.status !== 403 || foreign.body?.code !== "FORBIDDEN")
              failures.push(`${name} as ${who} (B header): ${foreign.status} ${foreign.text.slice(0, 160)}`);
          } catch (e) {
            failures.push(`${name} as ${who}: ${(e as Error).message}`);
          }
        }
        covered.add(name);
      }
      const after = await tenantSnapshot(w.tenantB.id);
      console.log(
        `isolation matrix: ${covered.size} of ${routes.length} id routes covered, ${requests} requests, ${Object.keys(credentialsOfA()).length} credentials of A, ${before.tables} tenant tables compared, ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      expect(failures).toEqual([]);
      console.log(
        `isolation matrix: left out as global, not tenant resources: ${Object.entries(GLOBAL_PATHS)
          .map(([p, why]) => `${p} (${why})`)
          .join("; ")}`,
      );
      expect(covered.size).toBe(routes.length);
      expect(routes.length).toBeGreaterThan(90);
      expect(after.digest, "tenant B's rows changed").toBe(before.digest);
    }, 300_000);

    it("uses real tenant-B ids: B's own admin reads each of them", async () => {
      const reads = idRoutes().filter((o) => o.method === "get");
      const unknown: string[] = [];
      for (const o of reads) {
        const path = concrete(o);
        if (path.includes(UNKNOWN_ID)) {
          unknown.push(o.path);
          continue;
        }
        const res = await w.as("tenantBAdmin").get(path);
        expect(res.status, `${o.path}: ${res.text.slice(0, 200)}`).toBe(200);
      }
      console.log(
        `isolation matrix: ${reads.length - unknown.length} of ${reads.length} GET id routes read back by B; unknown ids only for ${unknown.join(", ") || "none"}`,
      );
      expect(unknown).toEqual([]);
    }, 60_000);
  },
);

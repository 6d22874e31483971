import { describe, expect, it } from "vitest";
import { isTenantScoped, operations } from "../helpers/openapi";

/** 503 TENANT_MOVING (docs/scaling.md) in the generated OpenAPI document: on every tenant-scoped write, nowhere else. */
describe("OpenAPI: 503 TENANT_MOVING", () => {
  const ops = operations();
  const tenantWrite = (o: (typeof ops)[number]) => o.method !== "get" && isTenantScoped(o.op);

  it("is declared, with Retry-After and the error envelope, on every tenant-scoped write", () => {
    const writes = ops.filter(tenantWrite);
    // the API has well over a hundred tenant writes; an empty filter would prove nothing
    expect(writes.length).toBeGreaterThan(100);
    const missing = writes.filter((o) => !o.op.responses["503"]).map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(missing).toEqual([]);
    for (const o of writes) {
      const r = o.op.responses["503"] as {
        headers?: Record<string, { schema?: { type?: string } }>;
        content?: Record<string, { schema?: { $ref?: string } }>;
      };
      expect(r.headers?.["Retry-After"]?.schema?.type, `${o.method} ${o.path}`).toBe("string");
      expect(r.content?.["application/json"]?.schema?.$ref).toBe("#/components/schemas/ErrorResponse");
    }
  });

  it("outside /v1 is declared exactly on the other fenced writes (agency writes into an owned tenant, tenant updates, public token writes), never on reads", () => {
    const elsewhere = ops
      .filter((o) => !tenantWrite(o) && o.op.responses["503"])
      .map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(elsewhere.sort()).toEqual(
      [
        "PATCH /agency/tenants/{id}",
        "POST /agency/tenants/{id}/users",
        "POST /agency/tenants/{tenantId}/locations",
        "POST /agency/tenants/{tenantId}/campaigns",
        "PATCH /admin/tenants/{id}",
        "POST /v1/f/{token}",
        "POST /unsubscribe/{token}",
        "DELETE /unsubscribe/{token}",
        "POST /alerts/unsubscribe/{token}",
      ].sort(),
    );
    for (const path of elsewhere) expect(path.startsWith("GET "), path).toBe(false);
    // sanity: the document has reads and non-tenant writes to check
    expect(ops.some((o) => o.method === "get" && isTenantScoped(o.op))).toBe(true);
    expect(ops.some((o) => o.method === "post" && o.path.startsWith("/agency/"))).toBe(true);
  });
});

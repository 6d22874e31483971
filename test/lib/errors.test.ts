import { beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

describe("error model", () => {
  it("answers an unknown route with a 404 ErrorResponse", async () => {
    const res = await request("GET", "/nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "No route for GET /nope", code: "NOT_FOUND" });
  });

  it("puts a request id on every response and echoes a sane incoming one", async () => {
    const minted = await request("GET", "/health");
    expect(minted.headers.get("x-request-id")).toMatch(/^req_[a-z0-9]+$/);
    const echoed = await request("GET", "/nope", { headers: { "x-request-id": "client-trace-0001" } });
    expect(echoed.headers.get("x-request-id")).toBe("client-trace-0001");
    const unsafe = await request("GET", "/health", { headers: { "x-request-id": "<script>" } });
    expect(unsafe.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("401s a /v1 call without a token, with WWW-Authenticate", async () => {
    const res = await request("GET", "/v1/locations", { tenantId: w.tenantA.id });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "UNAUTHENTICATED" });
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("401s a forged, expired-looking or garbage token", async () => {
    const [h, p] = w.users.tenantAdmin.token.split(".");
    for (const token of [`${h}.${p}.forgedsignature`, "not-a-token", "a.b.c"]) {
      const res = await request("GET", "/v1/locations", { token, tenantId: w.tenantA.id });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("UNAUTHENTICATED");
    }
  });

  it("400s a /v1 call without x-tenant-id as TENANT_REQUIRED", async () => {
    const res = await request("GET", "/v1/locations", { token: w.users.tenantAdmin.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "The x-tenant-id header is required", code: "TENANT_REQUIRED" });
  });

  it("turns malformed JSON into a 400 VALIDATION_ERROR", async () => {
    const res = await w
      .as("tenantAdmin")
      .post("/v1/locations", '{"name": "Downtown",', { "content-type": "application/json" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.text).not.toMatch(/at .*\.ts|SQL|stack/i);
  });

  it("treats a missing or non-JSON body as invalid, not as an empty object", async () => {
    const none = await w.as("tenantAdmin").post("/v1/locations");
    expect(none.status).toBe(400);
    expect(none.body.code).toBe("VALIDATION_ERROR");
    const form = await w
      .as("tenantAdmin")
      .post("/v1/locations", "name=x", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(400);
  });

  it("lists every invalid field in details.issues", async () => {
    const res = await w.as("tenantAdmin").post("/v1/locations", { name: "", timezone: "Mars/Olympus", latitude: 91 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    const paths = res.body.details.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(["latitude", "name", "timezone"]);
    expect(res.body.details.issues.find((i: { path: string }) => i.path === "timezone").message).toMatch(/IANA/);
  });

  it("rejects a query limit outside 1..200 and a tampered cursor", async () => {
    expect((await w.as("viewer").get("/v1/locations?limit=0")).status).toBe(400);
    expect((await w.as("viewer").get("/v1/locations?limit=201")).status).toBe(400);
    const bad = await w.as("viewer").get("/v1/locations?cursor=%%%");
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues).toEqual([{ path: "cursor", message: "Invalid cursor" }]);
  });

  it("refuses /admin to everyone but a platform admin", async () => {
    expect((await w.as("tenantAdmin").get("/admin/outbox")).status).toBe(403);
    expect((await w.as("agencyAdmin").get("/admin/outbox")).status).toBe(403);
    const ok = await w.as("platformAdmin").get("/admin/outbox");
    expect(ok.status).toBe(200);
    // the dev mailbox of this file's tenants is empty (a mail another file's queued send delivers late may be there)
    const ours = new Set([w.tenantA.id, w.tenantB.id]);
    expect(ok.body.data.filter((m: { tenantId: string }) => ours.has(m.tenantId))).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_BODY_BYTES } from "../../src/middleware/body-limit";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";

// The global middleware every request passes (src/app.ts) was trimmed for the hot GET paths
// (docs/performance.md, Floor and hot paths, third look): what each still guarantees.

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

describe("the per-request middleware after the hot-path trims", () => {
  it("a JSON body over the cap is still refused with 413 before anything parses it", async () => {
    const res = await request("POST", "/v1/contacts", {
      token: w.users.tenantAdmin.token,
      tenantId: w.tenantA.id,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "big@example.test", notes: "x".repeat(MAX_JSON_BODY_BYTES) }),
      unchecked: true,
    });
    expect([res.status, res.body.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    // refused in the inner global layer (request-guards.ts): the outer layer still stamps the answer
    expect(res.headers.get("x-request-id")).toMatch(/^req_[a-z][0-9a-z]{23}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a GET answers with one x-request-id (echoed when sane, minted otherwise) and nosniff, and no page headers on JSON", async () => {
    const echoed = await request("GET", "/health", { headers: { "x-request-id": "client-chosen-id-1" } });
    expect(echoed.status).toBe(200);
    expect(echoed.headers.get("x-request-id")).toBe("client-chosen-id-1");
    const minted = await request("GET", "/health");
    expect(minted.headers.get("x-request-id")).toMatch(/^req_[a-z][0-9a-z]{23}$/);
    expect(minted.headers.get("x-content-type-options")).toBe("nosniff");
    expect(minted.headers.get("x-frame-options")).toBeNull();
    expect(minted.headers.get("content-security-policy")).toBeNull();
  });
});

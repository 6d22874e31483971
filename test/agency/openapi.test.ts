import { expect, it } from "vitest";
import { request } from "../helpers/http";

const PATHS = [
  "/admin/agencies",
  "/admin/agencies/{id}/admins",
  "/admin/tenants",
  "/admin/tenants/{id}",
  "/admin/audit-events",
  "/admin/tenants/{id}/move",
  "/admin/tenants/{id}/moves",
  "/admin/tenant-moves/{id}",
  "/agency/tenants",
  "/agency/tenants/{id}",
  "/agency/tenants/{id}/users",
  "/agency/tenants/{tenantId}/locations",
  "/agency/locations",
  "/v1/locations/bulk",
  "/v1/users",
  "/v1/users/invite",
  "/v1/users/{id}",
  "/v1/users/{id}/roles",
  "/v1/users/{id}/invite",
  "/v1/users/{id}/invite/resend",
  "/v1/api-keys",
  "/v1/api-keys/{id}",
  "/v1/regions",
  "/v1/regions/{id}",
  "/v1/audit-events",
  "/v1/audit-events/export",
  "/auth/setup-password",
  "/auth/forgot-password",
  "/auth/reset-password",
];

it("documents every agency, admin, user, key, region and audit route in the OpenAPI document", async () => {
  const res = await request("GET", "/docs/openapi.json");
  expect(res.status).toBe(200);
  for (const p of PATHS) expect(res.body.paths, p).toHaveProperty([p]);
  expect(Object.keys(res.body.paths["/v1/audit-events/export"].get.responses["200"].content)).toEqual(["text/csv"]);
  expect(res.body.paths["/v1/locations/bulk"].post.requestBody.content).toHaveProperty(["multipart/form-data"]);
  // the move answers 202 with the move record (a background job), polled at /admin/tenant-moves/{id}
  expect(Object.keys(res.body.paths["/admin/tenants/{id}/move"].post.responses)).toContain("202");
  expect(res.body.paths["/admin/tenants/{id}/move"].post.responses["202"].content["application/json"].schema.$ref).toBe(
    "#/components/schemas/TenantMove",
  );
  expect(res.body.paths["/admin/tenant-moves/{id}"].get.responses["200"].content["application/json"].schema.$ref).toBe(
    "#/components/schemas/TenantMove",
  );
});

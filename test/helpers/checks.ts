import { expect } from "vitest";
import { type ApiResponse, client } from "./http";
import type { World } from "./seed";

/** Each [query, field]: `get(query)` answers 400 VALIDATION_ERROR with an issue on that field. */
export async function expectInvalidQueries(get: (query: string) => Promise<ApiResponse>, cases: [string, string][]) {
  for (const [query, path] of cases) {
    const res = await get(query);
    expect(res.status, query).toBe(400);
    expect(res.body.code, query).toBe("VALIDATION_ERROR");
    expect(
      res.body.details.issues.map((i: { path: string }) => i.path),
      query,
    ).toContain(path);
  }
}

/** A client of tenant A holding a new API key with these scopes, minted by A's tenant_admin. */
export async function keyClient(w: World, scopes: string[]) {
  const res = await w.as("tenantAdmin").post("/v1/api-keys", { name: `key ${scopes.join(" ")}`, scopes });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return client(res.body.key as string, w.tenantA.id);
}

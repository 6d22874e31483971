/**
 * The README's "first session", with a typed client generated from the served OpenAPI document
 * (docs/api-lint.md, "Generate a client"): bootstrap, log in, read /me for the tenant id, create a
 * location and list the locations. `npm run sdk:check` regenerates sdk/schema.d.ts and compiles this
 * file, so a breaking change to the document (a renamed field, a removed path) fails CI.
 *
 * Run against `npm run dev`: `BASE_URL=http://localhost:8787 npx tsx examples/first-session.ts`. Against a
 * deployment, also `BOOTSTRAP_SECRET=...` (the secret `npm run setup:cloudflare` set; without one a
 * deployed service refuses /bootstrap).
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./sdk/schema";

type Location = components["schemas"]["Location"];

const owner = { email: "owner@acme.test", password: "s3cure-passw0rd" };

/** The error body (ErrorResponse) of a failed call, as an exception. */
function fail(step: string, error: unknown, response: Response): never {
  throw new Error(`${step}: HTTP ${response.status} ${JSON.stringify(error)}`);
}

export async function firstSession(baseUrl: string, bootstrapSecret?: string): Promise<Location[]> {
  const api = createClient<paths>({ baseUrl });

  // 1. One-time bootstrap: the first tenant and its platform admin (a second call is 409, which is fine here)
  const boot = await api.POST("/bootstrap", {
    params: { header: bootstrapSecret ? { "x-bootstrap-secret": bootstrapSecret } : {} },
    body: {
      tenantName: "Acme Dental",
      tenantSlug: "acme-dental",
      adminEmail: owner.email,
      adminPassword: owner.password,
      adminName: "Olivia Owner",
    },
  });
  if (boot.error && boot.response.status !== 409) fail("bootstrap", boot.error, boot.response);

  // 2. Log in (a session JWT, valid 8 hours)
  const login = await api.POST("/auth/login", { body: owner });
  if (!login.data) fail("login", login.error, login.response);
  const token = login.data.token;

  // 3. Who am I: the tenant id every /v1 call names in x-tenant-id
  const me = await api.GET("/me", { headers: { authorization: `Bearer ${token}` } });
  if (!me.data) fail("me", me.error, me.response);
  const tenantId = me.data.tenantId;
  if (!tenantId) throw new Error("me: this user belongs to no tenant");

  // 4. Tenant-scoped calls carry both headers
  const tenant = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${token}`, "x-tenant-id": tenantId },
  });
  const created = await tenant.POST("/v1/locations", {
    body: { name: "Downtown", timezone: "America/Chicago", googlePlaceId: "ChIJ-example-place" },
  });
  if (!created.data) fail("createLocation", created.error, created.response);

  const page = await tenant.GET("/v1/locations", { params: { query: { limit: 20 } } });
  if (!page.data) fail("listLocations", page.error, page.response);
  return page.data.data;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const locations = await firstSession(process.env.BASE_URL ?? "http://localhost:8787", process.env.BOOTSTRAP_SECRET);
  console.log(JSON.stringify(locations));
}

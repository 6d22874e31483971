import { BENCH_BOOTSTRAP_SECRET } from "./bootstrap-secret.mjs";

/**
 * Bootstraps a fresh served Worker (its first tenant and admin); the admin's token, tenant and headers.
 * `secret`: the Worker's BOOTSTRAP_SECRET, sent as x-bootstrap-secret (the bench server's by default).
 */
export async function bootstrap(
  base,
  {
    tenantName = "Bench Co",
    tenantSlug = "bench-co",
    adminEmail = "bench@example.test",
    adminPassword = "bench-password-1",
    adminName = "Bench",
  } = {},
  { secret = BENCH_BOOTSTRAP_SECRET } = {},
) {
  const body = { tenantName, tenantSlug, adminEmail, adminPassword, adminName };
  const res = await fetch(`${base}/bootstrap`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-bootstrap-secret": secret },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 201) throw new Error(`bootstrap failed: ${res.status} ${JSON.stringify(json)}`);
  return {
    token: json.token,
    tenantId: json.tenant.id,
    headers: { authorization: `Bearer ${json.token}`, "x-tenant-id": json.tenant.id },
  };
}

/** The bootstrap admin's credential alone (a platform admin): each request then names its tenant. */
export const adminCredential = async (base, names) => ({
  headers: { authorization: (await bootstrap(base, names)).headers.authorization },
});

// The served Worker's REST API as its bootstrap admin, for the browser tests: bootstraps it, then
// returns a JSON client that sends the admin's credential and tenant (a status >= 300 throws).
import { BENCH_BOOTSTRAP_SECRET } from "../../../bench/lib/server.mjs";
import { mintLinkToken } from "../../../src/modules/links/tokens";

/** the JWT_SECRET bench/lib/server.mjs gives the Worker */
export const BENCH_SECRET = "bench-jwt-secret-0123456789-0123456789";

export type Api = (path: string, init?: RequestInit) => Promise<Record<string, any>>;

export async function bootstrapApi(base: string, tenant: { name: string; slug: string; email: string }) {
  let auth: Record<string, string> = {};
  const api: Api = (p, init = {}) =>
    fetch(`${base}${p}`, {
      ...init,
      headers: { "content-type": "application/json", ...auth, ...(init.headers as Record<string, string>) },
    }).then(async (r) => {
      const body = r.status === 204 ? null : await r.json();
      if (r.status >= 300) throw new Error(`${p}: ${r.status} ${JSON.stringify(body)}`);
      return body as Record<string, any>;
    });
  const boot = await api("/bootstrap", {
    method: "POST",
    headers: { "x-bootstrap-secret": BENCH_BOOTSTRAP_SECRET },
    body: JSON.stringify({
      tenantName: tenant.name,
      tenantSlug: tenant.slug,
      adminEmail: tenant.email,
      adminPassword: "long enough password",
      adminName: "Owner",
    }),
  });
  auth = { authorization: `Bearer ${boot.token}`, "x-tenant-id": boot.tenant.id };
  return { api, auth, tenantId: boot.tenant.id as string, agencyId: boot.tenant.agencyId as string };
}

/**
 * A sent solicitation with a feedback link, written straight through the D1 handle (what [sending]
 * would have created): its id and link token.
 */
export async function seedFeedbackSolicitation(
  db: D1Database,
  o: { tenantId: string; locationId: string; contactId: string },
) {
  const solicitationId = `sol_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const token = await mintLinkToken(BENCH_SECRET, {
    solicitationId,
    tenantId: o.tenantId,
    locationId: o.locationId,
    destination: "feedback",
  });
  const now = new Date().toISOString();
  await db
    .prepare(
      `insert into solicitations (id, tenant_id, location_id, contact_id, channel, status, short_link_token, sent_at, metadata, created_at, updated_at)
       values (?, ?, ?, ?, 'email', 'SENT', ?, ?, '{}', ?, ?)`,
    )
    .bind(solicitationId, o.tenantId, o.locationId, o.contactId, token, now, now, now)
    .run();
  return { solicitationId, token };
}

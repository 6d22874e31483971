// The served Worker's REST API for the browser tests: a JSON client (a status >= 300 throws) that sends a tenant
// admin's credential and tenant, either the bootstrap admin of a Worker of the file's own (bootstrapApi) or an
// admin of a tenant the file makes on the run's shared Worker (tenantApi).
import { BENCH_JWT_SECRET, BOOTSTRAP_SECRET_HEADER, type SqlDatabase } from "../../../bench/lib/server.mjs";
import { mintLinkToken } from "../../../src/modules/links/tokens";

export type Api = (path: string, init?: RequestInit) => Promise<Record<string, any>>;

/** A JSON client of the Worker at `base` sending what `auth()` gives at each call (a status >= 300 throws). */
function jsonClient(base: string, auth: () => Record<string, string>): Api {
  return (p, init = {}) =>
    fetch(`${base}${p}`, {
      ...init,
      headers: { "content-type": "application/json", ...auth(), ...(init.headers as Record<string, string>) },
    }).then(async (r) => {
      const body = r.status === 204 ? null : await r.json();
      if (r.status >= 300) throw new Error(`${p}: ${r.status} ${JSON.stringify(body)}`);
      return body as Record<string, any>;
    });
}

export async function bootstrapApi(base: string, tenant: { name: string; slug: string; email: string }) {
  // the only credential before bootstrap is the bootstrap secret
  let auth: Record<string, string> = { ...BOOTSTRAP_SECRET_HEADER };
  const api = jsonClient(base, () => auth);
  const boot = await api("/bootstrap", {
    method: "POST",
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
 * The platform admin of the run's shared Worker (test/setup/served-worker.ts bootstrapped it): for what only
 * the platform may do (agencies, the dev mailbox), never as a test's tenant admin, who sees only its tenant.
 */
export function platformAdminApi(base: string): Api {
  const token = process.env.SERVED_WORKER_ADMIN_TOKEN;
  if (!token) throw new Error("no shared Worker: run the file in vitest's node project (test/setup/served-worker.ts)");
  return jsonClient(base, () => ({ authorization: `Bearer ${token}` }));
}

/**
 * A tenant of the file's own on the shared Worker, made as an agency makes one: the platform admin creates it
 * (in the house agency unless `agencyId` names another) and adds `email` as its tenant_admin with the password
 * bootstrapApi gives, who then signs in. The same shape as bootstrapApi's, acting as that tenant admin.
 */
export async function tenantApi(
  base: string,
  tenant: { name: string; slug: string; email: string; adminName?: string; agencyId?: string },
) {
  const admin = platformAdminApi(base);
  const created = await admin("/agency/tenants", {
    method: "POST",
    body: JSON.stringify({ name: tenant.name, slug: tenant.slug, agencyId: tenant.agencyId }),
  });
  await admin(`/agency/tenants/${created.id}/users`, {
    method: "POST",
    body: JSON.stringify({
      email: tenant.email,
      name: tenant.adminName ?? "Owner",
      role: "tenant_admin",
      password: "long enough password",
    }),
  });
  const login = await jsonClient(base, () => ({}))("/auth/login", {
    method: "POST",
    body: JSON.stringify({ email: tenant.email, password: "long enough password" }),
  });
  const auth = { authorization: `Bearer ${login.token}`, "x-tenant-id": created.id as string };
  return {
    api: jsonClient(base, () => auth),
    auth,
    token: login.token as string,
    tenantId: created.id as string,
    agencyId: created.agencyId as string,
  };
}

/**
 * A sent solicitation with a feedback link, written straight through the D1 handle (what [sending]
 * would have created): its id and link token.
 */
export async function seedFeedbackSolicitation(
  db: SqlDatabase,
  o: { tenantId: string; locationId: string; contactId: string },
) {
  const solicitationId = `sol_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const token = await mintLinkToken(BENCH_JWT_SECRET, {
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

/**
 * A person confirms an assistant's call on the console's confirm page the refusal linked to (docs/mcp.md
 * "Confirmation"), as a browser without script does: sign in, open the page, post its form with the CSRF
 * token. Throws unless the page confirmed it.
 */
export async function confirmInConsole(link: string, email: string, password = "long enough password") {
  const origin = new URL(link).origin;
  const cookies = new Map<string, string>();
  const send = async (path: string, form?: Record<string, string>) => {
    const res = await fetch(`${origin}${path}`, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded", origin } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const line of (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return { status: res.status, text: await res.text() };
  };
  const signedIn = await send("/app/sign-in", { email, password });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const path = new URL(link).pathname;
  const page = await send(path);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (page.status !== 200 || !csrf) throw new Error(`the confirm page answered ${page.status}`);
  const confirmed = await send(path, { csrf, decision: "confirm" });
  if (confirmed.status !== 303) throw new Error(`confirming answered ${confirmed.status}`);
}

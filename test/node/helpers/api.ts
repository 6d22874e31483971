// The served Worker's REST API as its bootstrap admin, for the browser tests: bootstraps it, then
// returns a JSON client that sends the admin's credential and tenant (a status >= 300 throws).
import { BENCH_JWT_SECRET, BOOTSTRAP_SECRET_HEADER, type SqlDatabase } from "../../../bench/lib/server.mjs";
import { mintLinkToken } from "../../../src/modules/links/tokens";

export type Api = (path: string, init?: RequestInit) => Promise<Record<string, any>>;

export async function bootstrapApi(base: string, tenant: { name: string; slug: string; email: string }) {
  // the only credential before bootstrap is the bootstrap secret
  let auth: Record<string, string> = { ...BOOTSTRAP_SECRET_HEADER };
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

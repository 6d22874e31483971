/** @jsxImportSource hono/jsx */
import { getCookie, setCookie } from "hono/cookie";
import { validationError } from "../../../lib/errors";
import { resolveTenantAccess } from "../../identity/access";
import { findTenantRef } from "../../identity/service";
import { reachableTenants } from "../../tenants/reachable";
import { ReachableTenantQuery } from "../../tenants/schemas";
import { Pager } from "../atoms";
import { type CC, outsidePages, page } from "../kit";
import { roleText } from "../layout";

/*
 * The tenant switcher (docs/console.md): the tenants the person reaches, by name, with their role in each
 * (GET /me/tenants, the same service). Agency admins see their agencies' tenants; the platform admin
 * searches and pages through every tenant. On a custom hostname, only the tenants it serves.
 */

const LAST_TENANT_COOKIE = "console-tenant";

/** Remembered for `/app` (a preference, not a credential: every page checks access itself). */
export function rememberTenant(c: CC, tenantId: string): void {
  setCookie(c, LAST_TENANT_COOKIE, tenantId, {
    path: "/app",
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: 365 * 86_400,
  });
}

const hostScope = (c: CC) => c.var.customHost ?? null;

/** `/app`: the last tenant worked in (if still reachable here), the only one, or the switcher. */
export async function appEntry(c: CC): Promise<Response> {
  const person = c.var.consoleSession!.principal;
  const last = getCookie(c, LAST_TENANT_COOKIE);
  if (last && /^[a-z0-9]{1,64}$/.test(last)) {
    const ref = await findTenantRef(c.var.control, last);
    const access = ref ? resolveTenantAccess(person, ref) : null;
    const served = await c.var
      .hostGuard(last)
      .then(() => true)
      .catch(() => false);
    if (access && served) return c.redirect(`/app/t/${last}`, 303);
  }
  const first = await reachableTenants(c.var.control, person, { limit: 2, host: hostScope(c) });
  if (first.data.length === 1) return c.redirect(`/app/t/${first.data[0]!.id}`, 303);
  return c.redirect("/app/tenants", 303);
}

export async function tenantsPage(c: CC): Promise<Response> {
  const person = c.var.consoleSession!.principal;
  const parsed = ReachableTenantQuery.safeParse({
    search: c.req.query("search") || undefined,
    cursor: c.req.query("cursor") || undefined,
    limit: "25",
  });
  if (!parsed.success)
    throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  const q = parsed.data;
  const list = await reachableTenants(c.var.control, person, { ...q, host: hostScope(c) });
  const outside = outsidePages(person);
  return page(
    c,
    { title: "Your businesses", section: "tenants" },
    <>
      <h1>Choose a business</h1>
      {(outside.agency || outside.platform) && (
        <ul class="meta">
          {outside.agency && (
            <li>
              <a href="/app/agency">Agency: the businesses' health and usage; add a business</a>
            </li>
          )}
          {outside.platform && (
            <li>
              <a href="/app/platform">Platform: status, tenants, dead letters</a>
            </li>
          )}
        </ul>
      )}
      <form method="get" class="filters">
        <div>
          <label for="search">Name</label>
          <input id="search" name="search" type="search" value={q.search ?? ""} maxlength={100} />
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Search
          </button>
        </div>
      </form>
      <p class="muted" role="status">
        {list.total === 0
          ? q.search
            ? "No business matches this name."
            : outside.agency
              ? "Your agency has no business yet: add the first one on the Agency page."
              : "Your account has no role in any business here yet. Ask an admin to invite you."
          : `${list.total} business${list.total === 1 ? "" : "es"}`}
      </p>
      <ul class="items">
        {list.data.map((t) => (
          <li>
            <div class="item-head">
              <a href={`/app/t/${encodeURIComponent(t.id)}`}>{t.name}</a>
              <span class="status">{roleText(t)}</span>
            </div>
            <ul class="meta">
              <li>{t.slug}</li>
              {!t.isActive && <li>paused: read only</li>}
            </ul>
          </li>
        ))}
      </ul>
      <Pager
        base="/app/tenants"
        params={{ search: q.search }}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!q.cursor}
      />
    </>,
  );
}

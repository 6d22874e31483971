/** @jsxImportSource hono/jsx */
import { roleAtLeast } from "../../identity/access";
import { tenantHref, tenantOf } from "../atoms";
import { type CC, page } from "../kit";
import { type SectionLink, TENANT_SECTIONS } from "../sections";

/*
 * Settings (docs/console.md): the tenant's pages beyond the daily work, listed from sections.ts under their
 * area's heading, each for the roles its REST twin answers. Those the role does not reach are named with the
 * role they need, so a person knows whom to ask rather than wondering where a page went.
 */

const ROLE_NEEDED = { viewer: "Viewer", tenant_user: "Team member", manager: "Manager", tenant_admin: "Admin" };

export async function settingsPage(c: CC): Promise<Response> {
  const tenant = await tenantOf(c);
  const sections = TENANT_SECTIONS.filter((s) => s.group === "settings");
  const open = sections.filter((s) => roleAtLeast(tenant.role, s.minRole));
  const closed = sections.filter((s) => !roleAtLeast(tenant.role, s.minRole));
  const areaOf = (s: SectionLink): string => s.area ?? "Account";
  const areas = [...new Set(open.map(areaOf))];
  return page(
    c,
    { title: "Settings", section: "settings", tenant },
    <>
      <h1>Settings</h1>
      {areas.map((area, i) => (
        <section aria-labelledby={`area-${i}`}>
          <h2 id={`area-${i}`}>{area}</h2>
          <ul class="hub">
            {open
              .filter((s) => areaOf(s) === area)
              .map((s) => (
                <li>
                  <a href={tenantHref(c, s.path)}>{s.label}</a>
                  {"blurb" in s && <p class="muted small">{s.blurb}</p>}
                </li>
              ))}
          </ul>
        </section>
      ))}
      {closed.length > 0 && (
        <p class="muted small">
          Also here, for other roles:{" "}
          {closed.map((s, i) => (
            <>
              {i > 0 && "; "}
              {s.label} ({ROLE_NEEDED[s.minRole]})
            </>
          ))}
          .
        </p>
      )}
    </>,
  );
}

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { HOUSE_AGENCY_ID, TENANT_PLANS } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { slugify } from "../../../lib/validators";
import { listAdminAgenciesOperation } from "../../admin/agencies.operations";
import { addAgencyTenantUserOperation, createAgencyTenantOperation } from "../../agency/tenants.operations";
import { agencyUsageOperation } from "../../analytics/operations";
import type { AgencyUsagePageSchema } from "../../analytics/schemas";
import { administeredAgencies, isPlatformAdmin } from "../../identity/access";
import { CreateTenantBody, type TenantDetailSchema } from "../../tenants/schemas";
import { AddTenantUserBody, type TenantUserDto } from "../../users/schemas";
import { Pager, pct, Stars, When } from "../atoms";
import { act, type CC, csrfOf, formOf, page, parsedOr400, redirectTo, sentenceOf } from "../kit";
import { Csrf } from "../layout";

/*
 * The agency's page (docs/console.md, issue #46 item 11), outside any tenant, for an agency's admins and the
 * platform admin (REST /agency's check, guards.ts forAgencyAdmins): the businesses the agency serves with their
 * health and usage as GET /agency/usage reads them (rating, response rate over 30 days, reviews past their SLA;
 * locations, contacts, requests sent this month, reviews), each linked to its home (the person's session reaches
 * every tenant of their agencies: no second sign-in), and "Add a business": POST /agency/tenants, then POST
 * /agency/tenants/{id}/users with the owner as tenant_admin and no password, which mails them the invite. Each
 * read and form is its /agency (or /admin) operation, through callOperation.
 */

const AGENCY = "/app/agency";

/** The agencies a new business may go to, when there is a choice (REST: agencyId, required for several). */
async function agencyChoices(c: CC): Promise<{ id: string; name: string }[]> {
  const p = c.var.principal;
  // the platform admin's default is the house agency (REST: no agencyId), offered first by its own name
  if (isPlatformAdmin(p))
    return (
      await callOperation<Page<{ id: string; name: string }>>(c, listAdminAgenciesOperation, {
        query: { limit: "200" },
      })
    ).data.filter((a) => a.id !== HOUSE_AGENCY_ID);
  const ids = administeredAgencies(p);
  return ids.length > 1 ? ids.map((id) => ({ id, name: id })) : [];
}

/** The agency's own brand and hostnames (pages/agency-white-label.tsx), one link per agency the person runs. */
function WhiteLabelLinks({ agencies }: { agencies: { id: string; name: string }[] }) {
  if (agencies.length === 0) return null;
  const href = (id: string) => `${AGENCY}/${encodeURIComponent(id)}/white-label`;
  return agencies.length === 1 ? (
    <p>
      <a href={href(agencies[0]!.id)}>White label</a>: your agency's brand and hostnames.
    </p>
  ) : (
    <nav aria-label="White label">
      <ul>
        {agencies.map((a) => (
          <li>
            <a href={href(a.id)}>White label of {a.name}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function AddBusiness(props: { csrf: string; agencies: { id: string; name: string }[]; platform: boolean }) {
  return (
    <section class="card" aria-labelledby="add-business">
      <h2 id="add-business">Add a business</h2>
      <p class="muted small">
        The business is made with its first brand, and its owner gets an email to set a password (valid 7 days). You can
        open it at once, as its admin through your agency.
      </p>
      <form method="post" action={`${AGENCY}/tenants`}>
        <Csrf token={props.csrf} />
        <label for="b-name">Business name</label>
        <input id="b-name" name="name" type="text" required maxlength={200} autocomplete="off" />
        <label for="b-slug">Short name for addresses (optional: made from the name)</label>
        <input id="b-slug" name="slug" type="text" maxlength={63} autocomplete="off" />
        <label for="b-plan">Plan</label>
        <select id="b-plan" name="plan">
          {TENANT_PLANS.map((p) => (
            <option value={p}>{p}</option>
          ))}
        </select>
        {props.agencies.length > 0 && (
          <>
            <label for="b-agency">Agency</label>
            <select id="b-agency" name="agencyId">
              {props.platform && <option value="">The platform's own (house) agency</option>}
              {props.agencies.map((a) => (
                <option value={a.id}>{a.name}</option>
              ))}
            </select>
          </>
        )}
        <fieldset>
          <legend>Its owner</legend>
          <label for="b-owner-email">Email</label>
          <input id="b-owner-email" name="ownerEmail" type="email" required maxlength={254} autocomplete="off" />
          <label for="b-owner-name">Name (optional)</label>
          <input id="b-owner-name" name="ownerName" type="text" maxlength={200} autocomplete="off" />
        </fieldset>
        <div class="actions">
          <button type="submit">Add the business and invite its owner</button>
        </div>
      </form>
    </section>
  );
}

export async function agencyPage(c: CC): Promise<Response> {
  const state = c.req.query("state");
  const query = {
    cursor: c.req.query("cursor") || undefined,
    isActive: state === "active" ? "true" : state === "paused" ? "false" : undefined,
  };
  const [usage, csrf, agencies] = await Promise.all([
    callOperation<z.infer<typeof AgencyUsagePageSchema>>(c, agencyUsageOperation, { query: { ...query, limit: "25" } }),
    csrfOf(c),
    agencyChoices(c),
  ]);
  return page(
    c,
    { title: "Agency", section: "agency" },
    <>
      <h1>Your agency's businesses</h1>
      <p class="muted">
        How each business is doing and what it uses. Open one to work in it: your agency role makes you its admin,
        without signing in again.
      </p>
      <WhiteLabelLinks
        agencies={
          isPlatformAdmin(c.var.principal)
            ? agencies
            : administeredAgencies(c.var.principal).map((id) => ({ id, name: id }))
        }
      />
      <form method="get" class="filters">
        <div>
          <label for="state">Show</label>
          <select id="state" name="state">
            <option value="">Every business</option>
            <option value="active" selected={state === "active"}>
              Active
            </option>
            <option value="paused" selected={state === "paused"}>
              Paused
            </option>
          </select>
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Show
          </button>
        </div>
      </form>
      {usage.data.length === 0 ? (
        <p class="card">
          {query.isActive === undefined
            ? "No business yet. Add the first one below: its owner gets an invite by email."
            : "No business in this state."}
        </p>
      ) : (
        <table class="rows">
          <caption>
            Businesses ({usage.total}); requests and reviews in {usage.month}, figures as of <When iso={usage.asOf} />
          </caption>
          <thead>
            <tr>
              <th scope="col">Business</th>
              <th scope="col">Rating</th>
              <th scope="col">Answered (30 days)</th>
              <th scope="col">Past SLA</th>
              <th scope="col">Locations</th>
              <th scope="col">Contacts</th>
              <th scope="col">Requests sent</th>
              <th scope="col">Reviews</th>
            </tr>
          </thead>
          <tbody>
            {usage.data.map((u) => (
              <tr>
                <th scope="row" data-label="Business">
                  <a href={`/app/t/${encodeURIComponent(u.tenant.id)}`}>{u.tenant.name}</a>
                  <p class="muted small">
                    {u.tenant.plan}
                    {!u.tenant.isActive && <span class="status"> paused</span>}
                  </p>
                </th>
                <td data-label="Rating">
                  <Stars rating={u.averageRating} />
                </td>
                <td data-label="Answered (30 days)">{pct(u.responseRate)}</td>
                <td data-label="Past SLA">
                  <span class={u.overdueInboxItems > 0 ? "status bad" : "status ok"}>{u.overdueInboxItems}</span>
                </td>
                <td data-label="Locations">{u.locations}</td>
                <td data-label="Contacts">{u.contacts}</td>
                <td data-label="Requests sent">{u.messagesSentThisMonth}</td>
                <td data-label="Reviews">
                  {u.reviewsThisMonth} <span class="muted small">this month, {u.reviews} in all</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={AGENCY}
        params={{ state }}
        endCursor={usage.pageInfo.endCursor}
        hasNext={usage.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
      <AddBusiness csrf={csrf} agencies={agencies} platform={isPlatformAdmin(c.var.principal)} />
    </>,
  );
}

/**
 * REST: POST /agency/tenants, then POST /agency/tenants/{id}/users (tenant_admin, no password: the invite mail).
 * Both inputs are read by their schemas before anything is made; should the invite be refused after the business
 * is made, the page says so and where to invite from.
 */
export async function addBusinessSubmit(c: CC): Promise<Response> {
  return act(c, AGENCY, async () => {
    const form = await formOf(c);
    const name = form.one("name");
    const tenantInput = parsedOr400(CreateTenantBody, {
      name,
      slug: form.one("slug").trim() || slugify(name),
      plan: form.one("plan") || undefined,
      agencyId: form.one("agencyId") || undefined,
    });
    const ownerInput = parsedOr400(AddTenantUserBody, {
      email: form.one("ownerEmail"),
      name: form.one("ownerName").trim() || undefined,
      role: "tenant_admin",
    });
    const tenant = await callOperation<z.infer<typeof TenantDetailSchema>>(c, createAgencyTenantOperation, {
      body: tenantInput,
    });
    try {
      const owner = await callOperation<TenantUserDto>(c, addAgencyTenantUserOperation, {
        params: { id: tenant.id },
        body: ownerInput,
      });
      return redirectTo(c, AGENCY, {
        kind: "notice",
        text: owner.invitePending
          ? `${tenant.name} is added. An invite is on its way to ${owner.email}.`
          : `${tenant.name} is added. ${owner.email} already has an account: they are its admin now and were told by email.`,
      });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return redirectTo(c, AGENCY, {
        kind: "error",
        text: `${tenant.name} is added, but its owner was not invited: ${sentenceOf(c, e)} Invite them from its Team page.`,
      });
    }
  });
}

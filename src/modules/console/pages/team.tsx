/** @jsxImportSource hono/jsx */
import { TENANT_ROLES, type TenantRole } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canAdminister } from "../../../middleware/tenant";
import {
  deleteUserOperation,
  getUserOperation,
  inviteUserOperation,
  listUsersOperation,
  resendUserInviteOperation,
  revokeUserInviteOperation,
  updateUserOperation,
  updateUserRolesOperation,
} from "../../users/operations";
import { InviteUserBody, type TenantUserDto } from "../../users/schemas";
import { Pager, tenantHref, tenantOf, When } from "../atoms";
import { act, asRest, type CC, can, csrfOf, formOf, page, parsedOr400, type Refusals, redirectTo } from "../kit";
import { Csrf, ROLE_LABEL } from "../layout";

/*
 * Team (docs/console.md, issue #46 item 4): the people with a role in this tenant and the invites not yet
 * accepted, as GET /v1/users lists them (every role reads it). A tenant admin invites (POST /v1/users/invite),
 * changes a role (PUT /v1/users/{id}/roles), deactivates (DELETE /v1/users/{id}: a person who is only this
 * tenant's is deactivated, anyone with roles elsewhere only leaves this team), reactivates (PATCH
 * /v1/users/{id}), resends and revokes an invite (POST /v1/users/{id}/invite/resend, DELETE
 * /v1/users/{id}/invite). Each form calls its REST twin's operation (users/operations.ts) through
 * callOperation: the same role check and schemas; what the tenant may change (users/authority.ts) is the
 * service's rule, and its refusals are worded here.
 */

const ROLE_HELP: Record<TenantRole, string> = {
  tenant_admin: "everything, including the team, API keys and the audit log",
  manager: "approves and publishes replies, runs campaigns",
  tenant_user: "works the inbox and drafts replies",
  viewer: "reads everything, changes nothing",
};

/** The services' refusals (details.reason) as this page words them. */
const REFUSALS: Refusals = {
  own_account: "You cannot change your own role or deactivate yourself; another admin of this business can.",
  beyond_tenant:
    "This person also has roles outside this business, so their account is not this team's to change; only their role here is.",
  sso_person: "This person signs in with your single sign-on, so there is no invite to resend or revoke.",
  invite_accepted: "This person has already accepted the invite. Deactivate them if they should leave the team.",
  account_deactivated: "This account is deactivated. Reactivate it before sending the invite again.",
};

/** The highest of the person's roles here (roles rank; the select shows one). */
const topRole = (roles: TenantRole[]) => TENANT_ROLES.find((r) => roles.includes(r)) ?? "viewer";

const rolesText = (roles: TenantRole[]) => roles.map((r) => ROLE_LABEL[r]).join(", ") || "none";

function stateOf(u: TenantUserDto): { text: string; tone: string } {
  if (!u.isActive) return { text: "Deactivated", tone: "status bad" };
  if (u.authProvider !== "password") return { text: "Single sign-on", tone: "status ok" };
  return { text: "Active", tone: "status ok" };
}

function InviteForm(props: { action: string; csrf: string }) {
  return (
    <section class="card" aria-labelledby="invite">
      <h2 id="invite">Invite a person</h2>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for="invite-email">Email</label>
        <input id="invite-email" name="email" type="email" required maxlength={254} autocomplete="off" />
        <label for="invite-name">Name (optional)</label>
        <input id="invite-name" name="name" type="text" maxlength={200} autocomplete="off" />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          {TENANT_ROLES.map((r) => (
            <option value={r} selected={r === "tenant_user"}>
              {ROLE_LABEL[r]}: {ROLE_HELP[r]}
            </option>
          ))}
        </select>
        <p class="muted small">
          They get an email with a link to set their password (valid 7 days). Someone who already has an account gets
          the role at once and is told by email.
        </p>
        <div class="actions">
          <button type="submit">Send the invite</button>
        </div>
      </form>
    </section>
  );
}

/** A one-button form for a person (deactivate, reactivate, resend, revoke). */
function PersonAction(props: { action: string; csrf: string; label: string; danger?: boolean; person: string }) {
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrf} />
      <button
        type="submit"
        class={props.danger ? "danger" : "secondary"}
        aria-label={`${props.label}: ${props.person}`}
      >
        {props.label}
      </button>
    </form>
  );
}

export async function teamPage(c: CC): Promise<Response> {
  const query = { cursor: c.req.query("cursor") || undefined, limit: "100" };
  const [tenant, list, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Page<TenantUserDto>>(c, listUsersOperation, { query }),
    csrfOf(c),
  ]);
  const admin = can(c, "tenant_admin");
  const me = c.var.consoleSession!.principal.userId;
  const base = tenantHref(c, "/team");
  const path = (id: string, rest: string) => `${base}/${encodeURIComponent(id)}/${rest}`;
  const people = list.data.filter((u) => !u.invitePending);
  const pending = list.data.filter((u) => u.invitePending);
  const who = (u: TenantUserDto) => u.name || u.email;
  return page(
    c,
    { title: "Team", section: "team", tenant },
    <>
      <h1>Team</h1>
      {!admin && (
        <p class="muted">Only an admin of this business invites people and changes roles; you can see who is here.</p>
      )}
      {admin && <InviteForm action={`${base}/invite`} csrf={csrf} />}
      <table class="rows">
        <caption>People ({people.length})</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            {admin && <th scope="col">Change</th>}
          </tr>
        </thead>
        <tbody>
          {people.map((u) => {
            const state = stateOf(u);
            const self = u.id === me;
            return (
              <tr>
                <th scope="row" data-label="Name">
                  {u.name || <span class="muted">no name yet</span>}
                  {self && <span class="muted"> (you)</span>}
                </th>
                <td data-label="Email">{u.email}</td>
                <td data-label="Role">{rolesText(u.roles)}</td>
                <td data-label="State">
                  <span class={state.tone}>{state.text}</span>
                </td>
                {admin && (
                  <td data-label="Change">
                    {self ? (
                      <span class="muted">Another admin changes your role.</span>
                    ) : u.isActive ? (
                      <>
                        <form method="post" action={path(u.id, "roles")} class="inline">
                          <Csrf token={csrf} />
                          <label for={`role-${u.id}`} class="vh">
                            Role of {who(u)}
                          </label>
                          <select id={`role-${u.id}`} name="role">
                            {TENANT_ROLES.map((r) => (
                              <option value={r} selected={r === topRole(u.roles)}>
                                {ROLE_LABEL[r]}
                              </option>
                            ))}
                          </select>
                          <button type="submit" class="secondary" aria-label={`Change role of ${who(u)}`}>
                            Change role
                          </button>
                        </form>
                        <PersonAction
                          action={path(u.id, "deactivate")}
                          csrf={csrf}
                          label="Deactivate"
                          danger
                          person={who(u)}
                        />
                      </>
                    ) : (
                      <PersonAction action={path(u.id, "reactivate")} csrf={csrf} label="Reactivate" person={who(u)} />
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {people.length === 0 && <p class="card">Nobody has accepted an invite yet.</p>}
      <table class="rows">
        <caption>Pending invites ({pending.length})</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Invited</th>
            {admin && <th scope="col">Change</th>}
          </tr>
        </thead>
        <tbody>
          {pending.map((u) => (
            <tr>
              <th scope="row" data-label="Email">
                {u.email}
                {!u.isActive && <span class="status bad"> deactivated</span>}
              </th>
              <td data-label="Role">{rolesText(u.roles)}</td>
              <td data-label="Invited">
                <When iso={u.createdAt} />
              </td>
              {admin && (
                <td data-label="Change">
                  <div class="inline">
                    <PersonAction action={path(u.id, "invite/resend")} csrf={csrf} label="Resend" person={u.email} />
                    <PersonAction
                      action={path(u.id, "invite/revoke")}
                      csrf={csrf}
                      label="Revoke"
                      danger
                      person={u.email}
                    />
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {pending.length === 0 && <p class="card">No invite is waiting to be accepted.</p>}
      <Pager
        base={base}
        params={{}}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
    </>,
  );
}

// ---- the forms: each its REST twin's operation (its role check, schemas and service)

const personId = (c: CC) => c.req.param("userId") ?? "";
/** the person of the form's path, as the operations' path parameter */
const person = (c: CC) => ({ params: { id: personId(c) } });
const getPerson = (c: CC) => callOperation<TenantUserDto>(c, getUserOperation, person(c));
const back = (c: CC) => tenantHref(c, "/team");

/** A team form: REST's role check, then the action; the services' refusals worded by REFUSALS. */
const teamAction = (c: CC, run: () => Promise<Response>) =>
  act(
    c,
    back(c),
    async () => {
      await asRest(c, canAdminister);
      return run();
    },
    REFUSALS,
  );

/** REST: POST /v1/users/invite. */
export async function inviteSubmit(c: CC): Promise<Response> {
  return teamAction(c, async () => {
    const form = await formOf(c);
    const input = parsedOr400(InviteUserBody, {
      email: form.one("email"),
      name: form.one("name") || undefined,
      role: form.one("role"),
    });
    const added = await callOperation<TenantUserDto>(c, inviteUserOperation, { body: input });
    return redirectTo(c, back(c), {
      kind: "notice",
      text: added.invitePending
        ? `Invite sent to ${added.email} as ${ROLE_LABEL[input.role]}.`
        : `${added.email} already has an account: they are now ${ROLE_LABEL[input.role]} here and were told by email.`,
    });
  });
}

/** REST: PUT /v1/users/{id}/roles (one role: roles rank, so one is all a person needs). */
export async function rolesSubmit(c: CC): Promise<Response> {
  return teamAction(c, async () => {
    const form = await formOf(c);
    const after = await callOperation<TenantUserDto>(c, updateUserRolesOperation, {
      ...person(c),
      body: { roles: [form.one("role")] },
    });
    return redirectTo(c, back(c), {
      kind: "notice",
      text: `${after.name || after.email} is now ${rolesText(after.roles)}.`,
    });
  });
}

/** REST: DELETE /v1/users/{id}: deactivated when only this tenant's, else their roles here removed. */
export async function deactivateSubmit(c: CC): Promise<Response> {
  return teamAction(c, async () => {
    const before = await getPerson(c);
    await callOperation(c, deleteUserOperation, person(c));
    const after = await getPerson(c).catch((e) => {
      if (e instanceof ApiError && e.code === "NOT_FOUND") return null;
      throw e;
    });
    const name = before.name || before.email;
    return redirectTo(c, back(c), {
      kind: "notice",
      text: after
        ? `${name} is deactivated: they cannot sign in, and their sessions have ended.`
        : `${name} no longer has a role here. Their account stays, for the roles they hold elsewhere.`,
    });
  });
}

/** REST: PATCH /v1/users/{id} {isActive: true}. */
export async function reactivateSubmit(c: CC): Promise<Response> {
  return teamAction(c, async () => {
    const after = await callOperation<TenantUserDto>(c, updateUserOperation, {
      ...person(c),
      body: { isActive: true },
    });
    return redirectTo(c, back(c), { kind: "notice", text: `${after.name || after.email} can sign in again.` });
  });
}

/** REST: POST /v1/users/{id}/invite/resend. */
export async function resendInviteSubmit(c: CC): Promise<Response> {
  return teamAction(c, async () => {
    const u = await callOperation<TenantUserDto>(c, resendUserInviteOperation, person(c));
    return redirectTo(c, back(c), {
      kind: "notice",
      text: `A new invite is on its way to ${u.email}; the earlier link no longer works.`,
    });
  });
}

/** REST: DELETE /v1/users/{id}/invite. */
export async function revokeInviteSubmit(c: CC): Promise<Response> {
  return teamAction(c, async () => {
    const u = await getPerson(c);
    await callOperation(c, revokeUserInviteOperation, person(c));
    return redirectTo(c, back(c), {
      kind: "notice",
      text: `The invite to ${u.email} is revoked; its link no longer works.`,
    });
  });
}

/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { OAuthGrantListSchema } from "../../oauth/grants";
import { listMyOAuthGrantsOperation, revokeMyOAuthGrantOperation } from "../../oauth/operations";
import { isScope, SCOPES } from "../../oauth/scopes";
import { When } from "../atoms";
import { act, type CC, csrfOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";

/*
 * Connected apps (docs/console.md, issue #46 item 10): the apps (Claude, ChatGPT, any MCP client) the signed-in
 * person connected through OAuth, across tenants, as GET /me/oauth-grants lists them, and Disconnect: DELETE
 * /me/oauth-grants/{id}, both their operations through callOperation (the grant's tokens stop at once; audited in the tenant it acted for).
 * Another person's grant id is the 404 page. An app's name is its registration's: untrusted text, escaped
 * like every value; its logo is another origin's, which the console's CSP does not load (its initial stands in).
 */

export const CONNECTED_APPS = "/app/connected-apps";

/** GET /me/oauth-grants: the signed-in person's grants */
const myGrants = (c: CC) => callOperation<z.infer<typeof OAuthGrantListSchema>>(c, listMyOAuthGrantsOperation);

export async function connectedAppsPage(c: CC): Promise<Response> {
  const [{ data }, csrf] = await Promise.all([myGrants(c), csrfOf(c)]);
  return page(
    c,
    { title: "Connected apps", section: "connected-apps" },
    <>
      <p>
        <a href="/app/me">Your account</a>
      </p>
      <h1>Connected apps</h1>
      <p class="muted">
        Apps you allowed to act for you through OAuth, such as an AI assistant. Each acts for one business (or, in an
        agency session, for every business of your agencies) with what you allowed. Disconnecting one stops it at once.
      </p>
      {data.length === 0 ? (
        <p class="card">
          No app is connected. An app you connect (for example Claude or ChatGPT, through this service's MCP address)
          shows here.
        </p>
      ) : (
        <table class="rows">
          <caption>Apps ({data.length})</caption>
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Acts for</th>
              <th scope="col">Allowed</th>
              <th scope="col">Connected</th>
              <th scope="col">Last used</th>
              <th scope="col">Disconnect</th>
            </tr>
          </thead>
          <tbody>
            {data.map((g) => (
              <tr>
                <th scope="row" data-label="App">
                  {g.clientName}
                  <p class="muted small">Client {g.clientId}</p>
                </th>
                <td data-label="Acts for">
                  {g.tenantName ?? g.tenantId ?? ""}
                  {g.agencySession && <p class="muted small">agency session: every business of your agencies</p>}
                </td>
                <td data-label="Allowed">
                  {g.scopes.map((s) => (
                    <>
                      <span class="tag" title={isScope(s) ? SCOPES[s] : s}>
                        {s}
                      </span>{" "}
                    </>
                  ))}
                </td>
                <td data-label="Connected">
                  <When iso={g.createdAt} />
                </td>
                <td data-label="Last used">
                  <When iso={g.lastUsedAt} />
                </td>
                <td data-label="Disconnect">
                  <form method="post" action={`${CONNECTED_APPS}/${encodeURIComponent(g.id)}/revoke`}>
                    <Csrf token={csrf} />
                    <button type="submit" class="danger" aria-label={`Disconnect ${g.clientName}`}>
                      Disconnect
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
  );
}

/** REST: DELETE /me/oauth-grants/{grantId}. Another person's grant is the 404 page (the service's NOT_FOUND). */
export async function revokeAppSubmit(c: CC): Promise<Response> {
  return act(c, CONNECTED_APPS, async () => {
    const grantId = c.req.param("grantId") ?? "";
    // the app's name for the notice; a grant not in the person's list is the operation's 404
    const grant = (await myGrants(c)).data.find((g) => g.id === grantId);
    await callOperation(c, revokeMyOAuthGrantOperation, { params: { grantId } });
    return redirectTo(c, CONNECTED_APPS, {
      kind: "notice",
      text: `${grant?.clientName ?? "The app"} is disconnected: its next request is refused.`,
    });
  });
}

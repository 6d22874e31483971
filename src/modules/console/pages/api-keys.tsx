/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canAdminister } from "../../../middleware/tenant";
import { createApiKeyOperation, deleteApiKeyOperation, listApiKeysOperation } from "../../api-keys/operations";
import type { ApiKeyDto, CreatedApiKeySchema } from "../../api-keys/schemas";
import { API_SCOPES, DEFAULT_API_KEY_SCOPES } from "../../identity/scopes";
import { SCOPES } from "../../oauth/scopes";
import { Pager, ShownOnce, tenantHref, tenantOf, When } from "../atoms";
import { act, asRest, type CC, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf, type Flash } from "../layout";

/*
 * API keys (docs/console.md, issue #46 item 5; the specification's "admin console"): a tenant admin mints a
 * key with the scopes chosen (POST /v1/api-keys), sees the raw key once, on the answer to that post and never
 * again (the service keeps only its hash), lists the live keys with their last use (GET /v1/api-keys) and
 * revokes one (DELETE /v1/api-keys/{id}). Every part is tenant_admin, as REST: each read and form calls its REST
 * operation (callOperation: REST's role check and schemas), so other roles get REST's refusal.
 */

type Created = z.infer<typeof CreatedApiKeySchema>;

/** The key just made, shown once. */
function NewKey({ created }: { created: Created }) {
  return (
    <ShownOnce
      id="new-key"
      title={`Your new key “${created.name}”`}
      label="The key"
      value={created.key}
      copy="Copy the key"
      copied="Key copied to the clipboard."
    >
      <p class="muted small">
        Send it as <code>Authorization: Bearer …</code> with <code>x-tenant-id</code> naming this business. If it is
        lost, revoke it and make another.
      </p>
    </ShownOnce>
  );
}

function MintForm(props: { action: string; csrf: string }) {
  return (
    <section class="card" aria-labelledby="mint">
      <h2 id="mint">Make a key</h2>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for="key-name">Name (what uses it)</label>
        <input id="key-name" name="name" type="text" required maxlength={100} autocomplete="off" />
        <fieldset>
          <legend>What it may do</legend>
          {API_SCOPES.map((s) => (
            <label class="check" for={`scope-${s}`}>
              <input
                id={`scope-${s}`}
                type="checkbox"
                name="scopes"
                value={s}
                checked={DEFAULT_API_KEY_SCOPES.includes(s)}
              />
              <span>
                <code>{s}</code>: {SCOPES[s]}
              </span>
            </label>
          ))}
        </fieldset>
        <label for="key-expires">Expires after (optional, end of that day, UTC)</label>
        <input id="key-expires" name="expires" type="date" />
        <div class="actions">
          <button type="submit">Make the key</button>
        </div>
      </form>
    </section>
  );
}

/** The keys page; `created` is the key the post just made, shown this once. */
async function keysPage(c: CC, created?: Created, flash?: Flash): Promise<Response> {
  const cursor = c.req.query("cursor") || undefined;
  // REST's refusal before anything else is read
  const list = await callOperation<Page<ApiKeyDto>>(c, listApiKeysOperation, { query: { cursor, limit: "100" } });
  const [tenant, csrf] = await Promise.all([tenantOf(c), csrfOf(c)]);
  const base = tenantHref(c, "/api-keys");
  return page(
    c,
    { title: "API keys", section: "api-keys", tenant, flash },
    <>
      <h1>API keys</h1>
      {created && <NewKey created={created} />}
      <p class="muted">
        A key lets another system use this business's API with the scopes it was given. It works until it expires or is
        revoked.
      </p>
      {list.data.length === 0 ? (
        <p class="card">No API key yet. Make one below to connect another system.</p>
      ) : (
        <table class="rows">
          <caption>Live keys ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key starts with</th>
              <th scope="col">Scopes</th>
              <th scope="col">Made</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Revoke</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((k) => (
              <tr>
                <th scope="row" data-label="Name">
                  {k.name}
                </th>
                <td data-label="Key starts with">
                  <code>{k.prefix}…</code>
                </td>
                <td data-label="Scopes">
                  {k.scopes.map((s) => (
                    <span class="tag">{s}</span>
                  ))}
                </td>
                <td data-label="Made">
                  <When iso={k.createdAt} />
                </td>
                <td data-label="Expires">
                  {k.expiresAt ? <When iso={k.expiresAt} /> : <span class="muted">never</span>}
                </td>
                <td data-label="Last used">
                  <When iso={k.lastUsedAt} />
                </td>
                <td data-label="Revoke">
                  <form method="post" action={`${base}/${encodeURIComponent(k.id)}/revoke`}>
                    <Csrf token={csrf} />
                    <button type="submit" class="danger" aria-label={`Revoke the key ${k.name}`}>
                      Revoke
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={base}
        params={{}}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!cursor}
      />
      <MintForm action={base} csrf={csrf} />
    </>,
  );
}

export const apiKeysPage = (c: CC) => keysPage(c);

/**
 * REST: POST /v1/api-keys (createApiKey). REST's role check comes first (as its middleware runs), before the
 * form's own "no scope chosen" sentence. The answer is the page itself, with the raw key, not a redirect: the key exists
 * only in this response (no cookie, no session holds it), so reloading cannot show it again.
 */
export async function mintKeySubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, "/api-keys");
  return act(c, back, async () => {
    await asRest(c, canAdminister);
    const form = await formOf(c);
    const scopes = form.all("scopes");
    if (scopes.length === 0)
      return redirectTo(c, back, { kind: "error", text: "Choose at least one thing the key may do." });
    const expires = form.one("expires");
    const created = await callOperation<Created>(c, createApiKeyOperation, {
      body: { name: form.one("name"), scopes, expiresAt: expires ? `${expires}T23:59:59Z` : undefined },
    });
    return keysPage(c, created, { kind: "notice", text: `The key “${created.name}” is made.` });
  });
}

/** REST: DELETE /v1/api-keys/{id} (deleteApiKey). */
export async function revokeKeySubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, "/api-keys");
  return act(c, back, async () => {
    await callOperation(c, deleteApiKeyOperation, { params: { id: c.req.param("keyId") ?? "" } });
    return redirectTo(c, back, {
      kind: "notice",
      text: "The key is revoked: every request with it is refused within 60 seconds.",
    });
  });
}

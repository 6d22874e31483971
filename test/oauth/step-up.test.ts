import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { BASE, MCP_URL, statelessConfirmed, workerFetch } from "../mcp/helpers";
import { consentInBrowser, MemoryOAuthClient } from "./helpers";

let w: World;
let contactId = "";

beforeAll(async () => {
  w = await createWorld();
  contactId = (await w.as("manager").post("/v1/contacts", { email: "stepup@example.com" })).body.id;
});

/** A 2026-07-28 tools/call with an OAuth access token. */
const callTool = (token: string, name: string, args: Record<string, unknown>) =>
  workerFetch(`${BASE}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });

/** The SDK's own OAuth client: authorize for `scope`, play the browser, exchange the code. */
async function authorize(provider: MemoryOAuthClient, scope: string) {
  expect(await auth(provider, { serverUrl: MCP_URL, scope, fetchFn: workerFetch })).toBe("REDIRECT");
  const consent = await consentInBrowser(provider.authorizationUrl!, {
    email: w.users.tenantUser.email,
    tenantId: w.tenantA.id,
    scopes: scope.split(" "),
  });
  expect(consent.status).toBe(302);
  expect(
    await auth(provider, {
      serverUrl: MCP_URL,
      authorizationCode: consent.location!.searchParams.get("code")!,
      fetchFn: workerFetch,
    }),
  ).toBe("AUTHORIZED");
  return consent;
}

describe("incremental scope consent (step-up)", () => {
  it("a write tool outside the grant is 403 insufficient_scope; the consent page then asks for just that scope and the new token has both", async () => {
    const provider = new MemoryOAuthClient("Step-up Client");
    const first = await authorize(provider, "read:contacts");
    expect(first.consentHtml).not.toContain('id="granted"');
    expect(provider.saved!.scope).toBe("read:contacts");

    const refused = await callTool(provider.saved!.access_token, "contact.suppress", {
      contactId,
      reason: "asked",
      confirm: true,
    });
    expect(refused.status).toBe(403);
    const challenge = refused.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="write:contacts"');
    expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);

    provider.saved = undefined; // a client stepping up starts a new authorization (same registration)
    const second = await authorize(provider, "write:contacts");
    // only the new scope is offered; what the app already has is listed, not asked again
    expect(second.consentHtml).toContain('id="granted"');
    expect(second.consentHtml).toMatch(/It already has: <code>read:contacts<\/code>/);
    expect(second.consentHtml).toContain('value="write:contacts"');
    expect(second.consentHtml).not.toContain('name="scope" value="read:contacts"');
    expect(second.consentHtml).not.toContain('name="scope" value="read:reviews"');
    expect(provider.saved!.scope!.split(" ").sort()).toEqual(["read:contacts", "write:contacts"]);

    const done = await statelessConfirmed(provider.saved!.access_token, "contact.suppress", {
      contactId,
      reason: "asked",
    });
    expect(done.status).toBe(200);
    expect(done.result.structuredContent).toMatchObject({ id: contactId, isSuppressed: true });
    const listed = await callTool(provider.saved!.access_token, "contact.list", {});
    expect(((await listed.json()) as any).result.structuredContent.data.map((c: { id: string }) => c.id)).toContain(
      contactId,
    );
  });

  it("an API key calling outside its scopes gets the tool error, not a challenge (it cannot step up)", async () => {
    const key = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "ro", scopes: ["read:contacts"] })).body.key;
    const res = await callTool(key, "contact.suppress", { contactId, reason: "x", confirm: true });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).result.isError).toBe(true);
  });
});

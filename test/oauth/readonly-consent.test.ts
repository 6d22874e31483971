// /mcp/readonly is an OAuth protected resource of its own (docs/mcp.md, Read-only endpoint): its consent
// page offers read scopes only, and what a client or a forged form asks beyond them is narrowed away
// (RFC 6749 3.3: the token response names the scope granted; the token endpoint downscopes a
// refresh to the grant, and one asking none of the grant's scopes is invalid_scope). /mcp keeps offering every scope.
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { beforeAll, describe, expect, it } from "vitest";
import { READ_SCOPES } from "../../src/modules/oauth/scopes";
import { createWorld, type World } from "../helpers/seed";
import { BASE, MCP_READONLY_URL, MCP_URL, statelessRequest, workerFetch } from "../mcp/helpers";
import { consentInBrowser, MemoryOAuthClient } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const WRITE_ASK = ["read:contacts", "write:contacts", "write:responses", "agent:*"];
/** The scope checkboxes and the "asks for" list of a page. */
const offeredOn = (html: string) => [...html.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1]);
const listedOn = (html: string) => [...html.matchAll(/<li><code>([^<]+)<\/code>/g)].map((m) => m[1]);

/** Authorizes at `serverUrl` asking WRITE_ASK, ticks `ticked` on the consent page, exchanges the code. */
async function authorizeAsking(serverUrl: URL, ticked: string[], provider = new MemoryOAuthClient()) {
  expect(await auth(provider, { serverUrl, scope: WRITE_ASK.join(" "), fetchFn: workerFetch })).toBe("REDIRECT");
  const consent = await consentInBrowser(provider.authorizationUrl!, {
    email: w.users.manager.email,
    tenantId: w.tenantA.id,
    scopes: ticked,
  });
  expect(consent.status).toBe(302);
  const code = consent.location!.searchParams.get("code")!;
  expect(await auth(provider, { serverUrl, authorizationCode: code, fetchFn: workerFetch })).toBe("AUTHORIZED");
  return { consent, provider, tokens: provider.saved! };
}

describe("consent for /mcp/readonly", () => {
  it("lists and offers read scopes only, even when the client asks for write scopes", async () => {
    const { consent } = await authorizeAsking(MCP_READONLY_URL, ["read:contacts"]);
    expect(listedOn(consent.signInHtml)).toEqual(["read:contacts"]);
    expect(offeredOn(consent.consentHtml!)).toEqual(READ_SCOPES);
    expect(consent.consentHtml).not.toMatch(/write:|agent:\*/);
  });

  it("grants only read scopes when the form ticks write scopes anyway; the token response names what was granted", async () => {
    const { tokens } = await authorizeAsking(MCP_READONLY_URL, WRITE_ASK);
    expect(tokens.scope).toBe("read:contacts");
    const res = await statelessRequest(tokens.access_token, "/mcp/readonly", "tools/list", {});
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).result.tools.map((t: { name: string }) => t.name)).toEqual(["contact.list"]);
  });

  it("does not carry write scopes over from the same client's /mcp grant (incremental consent)", async () => {
    const provider = new MemoryOAuthClient("Both endpoints");
    expect((await authorizeAsking(MCP_URL, WRITE_ASK, provider)).tokens.scope?.split(" ").sort()).toEqual(
      [...WRITE_ASK].sort(),
    );
    provider.saved = undefined;
    const { consent, tokens } = await authorizeAsking(MCP_READONLY_URL, WRITE_ASK, provider);
    expect(consent.consentHtml).not.toMatch(/write:|agent:\*/);
    expect(tokens.scope).toBe("read:contacts");
  });

  it("narrows a refresh that asks for a write scope on the read-only grant; only write scopes is invalid_scope", async () => {
    const { provider, tokens } = await authorizeAsking(MCP_READONLY_URL, ["read:contacts"]);
    const refresh = (scope: string) =>
      workerFetch(`${BASE}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token!,
          client_id: provider.info!.client_id,
          scope,
          resource: MCP_READONLY_URL.href,
        }).toString(),
      });
    const onlyWrite = await refresh("write:contacts agent:*");
    expect(onlyWrite.status).toBe(400);
    expect(((await onlyWrite.json()) as { error: string }).error).toBe("invalid_scope");
    const mixed = await refresh("read:contacts write:contacts");
    expect(mixed.status).toBe(200);
    expect(((await mixed.json()) as { scope: string }).scope).toBe("read:contacts");
  });
});

describe("consent for /mcp", () => {
  it("still offers write scopes", async () => {
    const { consent } = await authorizeAsking(MCP_URL, ["read:contacts"]);
    expect(offeredOn(consent.consentHtml!)).toEqual(
      expect.arrayContaining(["write:contacts", "write:responses", "agent:*"]),
    );
  });
});

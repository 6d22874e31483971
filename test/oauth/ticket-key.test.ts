import { env } from "cloudflare:workers";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { createWorld, type World } from "../helpers/seed";
import { MCP_URL, workerFetch } from "../mcp/helpers";
import { consentInBrowser, MemoryOAuthClient } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const hidden = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]+)"`)
    .exec(html)?.[1]
    ?.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

describe("the OAuth consent ticket is signed with a key derived for it, not the raw JWT_SECRET", () => {
  it("a ticket with the right claims signed with the raw secret does not pass the consent step", async () => {
    const provider = new MemoryOAuthClient("ticket test");
    expect(await auth(provider, { serverUrl: MCP_URL, scope: "read:locations", fetchFn: workerFetch })).toBe(
      "REDIRECT",
    );
    const url = provider.authorizationUrl!;
    const page = await workerFetch(url);
    const html = await page.text();
    const cookie = (page.headers as unknown as { getSetCookie(): string[] })
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const handle = hidden(html, "handle")!;
    const forged = await new SignJWT({ h: await sha256Hex(handle) })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(w.users.tenantUser.id)
      .setAudience("oauth-consent")
      .setIssuer(env.JWT_ISSUER)
      .setIssuedAt()
      .setExpirationTime("600s")
      .sign(new TextEncoder().encode(env.JWT_SECRET));
    const fields: [string, string][] = [
      ["handle", handle],
      ["ticket", forged],
      ["step", "consent"],
      ["tenant", w.tenantA.id],
      ["decision", "approve"],
      ["scope", "read:locations"],
    ];
    const res = await workerFetch(url, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    expect(res.headers.get("location")).toBeNull();
    expect(res.status).not.toBe(302);

    // the real flow still works
    const real = await consentInBrowser(url, {
      email: w.users.tenantUser.email,
      tenantId: w.tenantA.id,
      scopes: ["read:locations"],
    });
    expect(real.status).toBe(302);
    expect(real.location!.searchParams.get("code")).toBeTruthy();
  });
});

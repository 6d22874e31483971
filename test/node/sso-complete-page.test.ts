// End to end in a real browser: the built Worker served from workerd (as bench/lib/server.mjs does),
// a stand-in IdP on another port, and headless Chromium following the whole SAML round trip:
// /init -> IdP (HTTP-Redirect) -> auto-posted response -> ACS -> /sso/complete.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_BOOTSTRAP_SECRET, type StartedServer, startServer } from "../../bench/lib/server.mjs";
import { base64, IDP, KEYS, signedResponse } from "../sso/idp";
import { CHROMIUM, freePort } from "./helpers/browser";

const SESSION_KEY = "reputation-ops.session-token";
/** runs in the page (no DOM lib in this project's types) */
const readSession = (key: string) =>
  (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem(key);

/** A stand-in IdP: reads the AuthnRequest and answers with a signed response auto-posted to the ACS. */
function startIdp(nameId: string, audience: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url!, "http://idp");
    const authnRequest = inflateRawSync(Buffer.from(url.searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
    const id = /\bID="([^"]+)"/.exec(authnRequest)![1]!;
    const acsUrl = /AssertionConsumerServiceURL="([^"]+)"/.exec(authnRequest)![1]!;
    const response = base64(
      signedResponse({ acsUrl, audience, inResponseTo: id, nameId, attributes: { displayName: "Browser Tester" } }),
    );
    res.writeHead(200, { "content-type": "text/html" });
    res.end(
      `<form method="post" action="${acsUrl}"><input type="hidden" name="SAMLResponse" value="${response}">` +
        `<input type="hidden" name="RelayState" value="${url.searchParams.get("RelayState")}"></form><script>document.forms[0].submit()</script>`,
    );
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sso` }),
    ),
  );
}

describe.skipIf(!existsSync(CHROMIUM))("SSO completion page in headless Chromium", () => {
  let worker: StartedServer;
  let idp: { server: Server; url: string };
  let browser: Browser;
  let slug: string;
  const outdir = mkdtempSync(path.join(tmpdir(), "sso-page-"));

  beforeAll(async () => {
    worker = await startServer({ port: await freePort(), outdir });
    slug = `sso-${Date.now().toString(36)}`;
    const boot = await fetch(`${worker.url}/bootstrap`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bootstrap-secret": BENCH_BOOTSTRAP_SECRET },
      body: JSON.stringify({
        tenantName: "SSO Page Co",
        tenantSlug: slug,
        adminEmail: "admin@sso-page.test",
        adminPassword: "long enough password",
        adminName: "Admin",
      }),
    }).then((r) => r.json() as Promise<{ token: string; tenant: { id: string } }>);
    idp = await startIdp("browser.tester@sso-page.test", `${worker.url}/auth/saml/${slug}/metadata`);
    const put = await fetch(`${worker.url}/v1/settings/sso`, {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${boot.token}`,
        "x-tenant-id": boot.tenant.id,
      },
      body: JSON.stringify({
        enabled: true,
        entryPoint: idp.url,
        idpEntityId: IDP.entityId,
        idpCertificates: [KEYS.idp1.cert],
        jitProvisioning: true,
        attributeMapping: { name: "displayName" },
      }),
    });
    expect(put.status).toBe(200);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    idp?.server.close();
    await worker?.mf.dispose();
    rmSync(outdir, { recursive: true, force: true });
  });

  it("stores the token in sessionStorage, removes it from the URL and shows who signed in", async () => {
    const page = await browser.newPage();
    await page.goto(`${worker.url}/auth/saml/${slug}/init`);
    await page.waitForURL(/\/sso\/complete/);
    await expect.poll(() => page.textContent("#title")).toBe("You are signed in");

    expect(page.url()).toBe(`${worker.url}/sso/complete`);
    expect(await page.textContent("#message")).toBe("Signed in as Browser Tester (browser.tester@sso-page.test).");
    expect(await page.isVisible("text=API documentation")).toBe(true);
    const token = await page.evaluate(readSession, SESSION_KEY);
    const me = await fetch(`${worker.url}/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
    expect(me).toMatchObject({ email: "browser.tester@sso-page.test", name: "Browser Tester", authProvider: "saml" });

    const screenshot = path.join(tmpdir(), "sso-complete.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`screenshot: ${screenshot}`);
  }, 60_000);

  it("explains what to do when the link carries no token", async () => {
    const page = await browser.newPage();
    await page.goto(`${worker.url}/sso/complete`);
    await expect.poll(() => page.textContent("#title")).toBe("Sign-in did not complete");
    expect(await page.evaluate(readSession, SESSION_KEY)).toBeNull();
  }, 30_000);
});

// End to end in a real browser: the run's shared Worker (test/setup/served-worker.ts),
// a stand-in IdP on another port, and headless Chromium following the whole SAML round trip:
// /init -> IdP (HTTP-Redirect) -> auto-posted response -> ACS -> /sso/complete?code= -> continue -> the console.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inflateRawSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base64, IDP, KEYS, signedResponse } from "../sso/idp";
import { tenantApi } from "./helpers/api";
import { CHROMIUM, launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

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

describe.skipIf(!existsSync(CHROMIUM))("SAML sign-in back to the console, in headless Chromium", () => {
  const worker = sharedWorker();
  /** the person the IdP signs in: an account this run's tenant provisions (JIT), no other file's */
  const person = `browser.tester.${Date.now().toString(36)}@sso-page.test`;
  let idp: { server: Server; url: string };
  let browser: Browser;
  let slug: string;

  beforeAll(async () => {
    slug = `sso-${Date.now().toString(36)}`;
    const tenant = await tenantApi(worker.url, {
      name: "SSO Page Co",
      slug,
      email: `admin.${slug}@sso-page.test`,
      adminName: "Admin",
    });
    idp = await startIdp(person, `${worker.url}/auth/saml/${slug}/metadata`);
    const put = await fetch(`${worker.url}/v1/settings/sso`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...tenant.auth },
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
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    idp?.server.close();
  });

  it("lands signed in on the console's home: the code leaves the address bar, the person continues, the session opens", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`${worker.url}/auth/saml/${slug}/init`);
    await page.waitForURL(/\/sso\/complete$/);
    // the single-use code is gone from the address bar (and from history: it was a redirect)
    expect(page.url()).toBe(`${worker.url}/sso/complete`);
    expect(await page.textContent("h1")).toBe("Continue signing in");
    await page.getByRole("button", { name: `Continue as ${person}` }).click();
    await page.waitForURL(/\/app\/t\//);
    expect(await page.textContent("h1")).toBe("SSO Page Co");
    expect(await page.textContent(".tenant")).toContain("Team member");
    // the code was spent: going back to the landing page signs in no one
    const again = await browser.newPage();
    await again.goto(`${worker.url}/sso/complete`);
    expect(await again.textContent("h1")).toBe("This link does not work");
    expect(errors, errors.join("\n")).toEqual([]);
  }, 60_000);

  it("explains what to do when the page is opened without a code", async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${worker.url}/sso/complete`);
    expect(res?.status()).toBe(400);
    expect(await page.textContent("h1")).toBe("This link does not work");
  }, 30_000);
});

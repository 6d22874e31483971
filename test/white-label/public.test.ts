// The white label where people see it: public pages (on the platform's host and on a custom hostname),
// short links, review-request emails and account emails.

import { env, exports } from "cloudflare:workers";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { clearIsolateLinkCaches } from "../../src/modules/links/location-cache";
import { forgetWhiteLabels } from "../../src/modules/white-label/resolve";
import { brandedTransactional } from "../../src/providers/messaging/transactional";
import { latestEmailTo } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { createContact, createLocation, type SeededSolicitation, seedSolicitation } from "../links/helpers";
import { MCP_URL, workerFetch } from "../mcp/helpers";
import { consentInBrowser, MemoryOAuthClient } from "../oauth/helpers";
import { newContact, noQuietHours, outboxFor, pendingRow, runSends, solicitationRow } from "../solicitations/helpers";
import { activeHostname } from "./helpers";

const HOST = "reviews.northwind.test";
const worker = (exports as unknown as { default: Fetcher }).default;
const onHost = (path: string, host = HOST, init: RequestInit = {}) =>
  worker.fetch(new Request(`https://${host}${path}`, { redirect: "manual", ...init }));

let w: World;
let a: SeededSolicitation;
let b: SeededSolicitation;

beforeAll(async () => {
  w = await createWorld();
  await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, {
    name: `Northwind <Reviews> & "Co"`,
    logoUrl: "/brand-logos/nwlogo1.png",
    primaryColor: "#0f766e",
    accentColor: "#f59e0b",
    supportEmail: "help@northwind.test",
  });
  await activeHostname("agency", w.agencyA.id, w.agencyA.id, HOST);
  const locA = await createLocation(w.as("manager"));
  const locB = await createLocation(w.as("tenantBAdmin"));
  a = await seedSolicitation({
    tenantId: w.tenantA.id,
    locationId: locA.id,
    contactId: (await createContact(w.as("manager"))).id,
    destination: "feedback",
  });
  b = await seedSolicitation({
    tenantId: w.tenantB.id,
    locationId: locB.id,
    contactId: (await createContact(w.as("tenantBAdmin"))).id,
    destination: "feedback",
  });
});
beforeEach(() => {
  forgetWhiteLabels();
  clearIsolateLinkCaches();
});

describe("public pages", () => {
  it("the feedback page wears the agency's colours and footer, with every brand value escaped", async () => {
    const res = await request("GET", `/f/${a.token}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("button,button.primary{background:#0f766e;border-color:#0f766e;color:#ffffff}");
    expect(res.text).toContain("body{border-top:6px solid #f59e0b}");
    expect(res.text).toContain(`<span class="wl-name">Northwind &lt;Reviews&gt; &amp; &quot;Co&quot;</span>`);
    // an uploaded logo, from our own origin (a remote one is never shown: test/white-label/logos.test.ts)
    expect(res.text).toContain('src="/brand-logos/nwlogo1.png"');
    expect(res.text).toContain('href="mailto:help@northwind.test"');
    expect(res.text).not.toContain("<Reviews>");
    const json = await request("GET", `/v1/f/${a.token}`);
    expect(json.body.whiteLabel).toEqual({
      name: `Northwind <Reviews> & "Co"`,
      logoUrl: "/brand-logos/nwlogo1.png",
      primaryColor: "#0f766e",
      accentColor: "#f59e0b",
      supportEmail: "help@northwind.test",
      source: "agency",
    });
    expect(json.body.submitUrl).toBe(`https://${HOST}/v1/f/${a.token}`);
  });

  it("a tenant of another agency shows no white label", async () => {
    const res = await request("GET", `/f/${b.token}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('class="wl"');
    expect(res.text).not.toContain("#0f766e");
  });

  it("the unsubscribe page wears the white label too", async () => {
    const res = await request("GET", `/unsubscribe/${a.unsubscribeToken}`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.text).toContain("background:#0f766e");
    expect(res.text).toContain("Northwind &lt;Reviews&gt; &amp; &quot;Co&quot;");
  });
});

describe("host routing", () => {
  it("serves the agency's tenants' pages on its custom hostname", async () => {
    const page = await onHost(`/f/${a.token}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("background:#0f766e");
    const unsubscribe = await onHost(`/unsubscribe/${a.unsubscribeToken}`, HOST, {
      headers: { accept: "application/json" },
    });
    expect(((await unsubscribe.json()) as { whiteLabel: { source: string } }).whiteLabel.source).toBe("agency");
  });

  it("refuses another agency's tenants on it (404), with the host's brand on the not-found page", async () => {
    const page = await onHost(`/f/${b.token}`);
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain("find this feedback page");
    expect(html).toContain("background:#0f766e");
    expect((await onHost(`/v1/f/${b.token}`)).status).toBe(404);
    expect(
      (await onHost(`/unsubscribe/${b.unsubscribeToken}`, HOST, { headers: { accept: "application/json" } })).status,
    ).toBe(404);
    expect((await onHost(`/v1/r/${b.token}?redirect=1`)).status).toBe(404);
    // on the platform's own host both work
    expect((await request("GET", `/f/${b.token}`)).status).toBe(200);
  });

  it("a short link sends people to the feedback page on the tenant's custom hostname", async () => {
    const redirect = await request("GET", `/v1/r/${a.token}?redirect=1`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe(`https://${HOST}/f/${encodeURIComponent(a.token)}`);
    const json = await request("GET", `/v1/r/${b.token}`);
    expect(json.body.feedbackUrl).toBe(`${env.PUBLIC_BASE_URL}/f/${encodeURIComponent(b.token)}`);
    const onCustom = await onHost(`/v1/r/${a.token}?redirect=1`);
    expect(onCustom.status).toBe(302);
  });

  it("an unknown or pending hostname is treated as the platform's host (no white label, no refusal)", async () => {
    const page = await onHost(`/f/${b.token}`, "pending.northwind.test");
    expect(page.status).toBe(200);
  });

  it("OAuth stays on the platform's host (the provider binds its endpoints there); the consent step wears the white label of the user's agency", async () => {
    const provider = new MemoryOAuthClient();
    const err = await new Client({ name: "t", version: "1" })
      .connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: provider }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnauthorizedError);
    const url = new URL(provider.authorizationUrl!);
    const seen = await consentInBrowser(url, { email: w.users.manager.email, tenantId: w.tenantA.id });
    expect(seen.signInHtml).toContain("Connect Test Desktop Client to Reputation Operations</h1>");
    expect(seen.consentHtml).toContain(
      "Connect Test Desktop Client to Northwind &lt;Reviews&gt; &amp; &quot;Co&quot;</h1>",
    );
    expect(seen.consentHtml).toContain(
      '<img src="/brand-logos/nwlogo1.png" alt="Northwind &lt;Reviews&gt; &amp; &quot;Co&quot; logo"/>',
    );
    expect(seen.consentHtml).toContain("button,button.primary{background:#0f766e");
    expect(seen.status).toBe(302);
    // tenant B's admin (another agency, no white label) sees the platform's name
    const other = new MemoryOAuthClient();
    await new Client({ name: "t", version: "1" })
      .connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, authProvider: other }))
      .catch(() => {});
    const b = await consentInBrowser(new URL(other.authorizationUrl!), {
      email: w.users.tenantBAdmin.email,
      tenantId: w.tenantB.id,
    });
    expect(b.consentHtml).toContain("Connect Test Desktop Client to Reputation Operations</h1>");
    // the same authorize URL on the custom hostname is refused by the provider, in the host's white label
    url.protocol = "https:";
    url.host = HOST;
    const res = await workerFetch(url);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("background:#0f766e");
  });
});

describe("emails", () => {
  it("a review request's links use the custom hostname and the email ends with the white-label footer", async () => {
    await noQuietHours(w);
    const loc = await createLocation(w.as("manager"));
    const c = await newContact(w);
    const id = await pendingRow({ tenantId: w.tenantA.id, contactId: c.id, locationId: loc.id });
    await runSends([id]);
    const row = await solicitationRow(id);
    expect(row!.status).toBe("SENT");
    const [mail] = await outboxFor(id);
    expect(mail!.html).toContain(`https://${HOST}/v1/r/${row!.shortLinkToken}?redirect=1`);
    expect(mail!.headers["List-Unsubscribe"]).toMatch(
      new RegExp(`^<https://${HOST.replace(/\./g, "\\.")}/unsubscribe/`),
    );
    expect(mail!.text).toContain(`\n\n--\nNorthwind <Reviews> & "Co" · Questions? help@northwind.test`);
    expect(mail!.html).toContain(
      `Northwind &lt;Reviews&gt; &amp; &quot;Co&quot; · Questions? <a href="mailto:help@northwind.test">`,
    );
  });

  it("account emails carry the footer and go out under the white-label name", async () => {
    const invited = `invitee-${newId()}@example.test`;
    expect((await w.as("tenantAdmin").post("/v1/users/invite", { email: invited, role: "viewer" })).status).toBe(201);
    const mail = await latestEmailTo(invited);
    expect(mail?.text).toContain(`Northwind <Reviews> & "Co" · Questions? help@northwind.test`);
    const brand = {
      name: "Northwind",
      logoUrl: null,
      primaryColor: null,
      accentColor: null,
      supportEmail: null,
      source: "agency" as const,
    };
    expect(brandedTransactional({ tenantId: "t", to: "x@y.test", subject: "Hi", text: "Body" }, brand)).toEqual({
      tenantId: "t",
      to: "x@y.test",
      subject: "Hi",
      text: "Body\n\n--\nNorthwind",
      fromName: "Northwind",
      channel: "email",
    });
    expect(
      brandedTransactional(
        { tenantId: "t", to: "x@y.test", subject: "Hi", text: "Body" },
        { ...brand, source: "default" },
      ),
    ).toEqual({
      tenantId: "t",
      to: "x@y.test",
      subject: "Hi",
      text: "Body",
      channel: "email",
    });
  });
});

// The console clicked through as a person would (#45 "Tests"), in headless Chromium against the built Worker
// served from workerd: the invite mail's link -> set a password -> the home naming the tenant; the reset mail's
// link -> a new password -> the sessions opened before are gone; an inbox item assigned and replied by a team
// member, approved (keyboard only) and published by a manager, refused to a viewer; an agency admin adding a
// business and inviting its owner, whose mail link opens the set-password page; and on every page reachable
// with a new tenant's data (the platform admin's pages too), axe-core (from npm) finds no serious or critical
// violation and the browser console no error (a CSP refusal is one). One browser for the whole file (the
// console's tests' CI budget, docs/console.md).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import Papa from "papaparse";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idpMetadataXml, KEYS } from "../sso/idp";
import { type Api, platformAdminApi, tenantApi } from "./helpers/api";
import { launchChromium } from "./helpers/browser";
import { sharedWorker } from "./helpers/worker-server";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const TENANT = "Harbour Dental";
const PASSWORD = "correct horse battery staple";

/** the run's shared Worker, where this file makes its own tenant and accounts (their addresses: this run's only) */
const worker = sharedWorker();
const RUN = Date.now().toString(36);
const OWNER = `owner.${RUN}@console-pages.test`;
let browser: Browser;
let api: Api;
const platform = platformAdminApi(worker.url);
let tenantId: string;
/** where the browser's downloads are saved */
const outdir = mkdtempSync(path.join(tmpdir(), "console-pages-"));

/** The newest mail to this address in the dev mailbox (the platform admin's GET /admin/outbox), polled. */
async function mailTo(to: string, notIn: Set<string> = new Set()): Promise<{ id: string; text: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { data } = await platform(`/admin/outbox?limit=200`);
    const mail = (data as { id: string; to: string; text: string }[]).find((m) => m.to === to && !notIn.has(m.id));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The console link a mail carries, on the served Worker's origin (PUBLIC_BASE_URL). */
function linkIn(text: string, pathname: string): string {
  const m = new RegExp(`https?://[^\\s]+${pathname}\\?token=[A-Za-z0-9_-]+`).exec(text);
  if (!m) throw new Error(`no ${pathname} link in: ${text}`);
  expect(new URL(m[0]).origin).toBe(worker.url);
  return m[0];
}

/** A page that records the browser console's errors, uncaught exceptions and requests to other origins. */
async function watched(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  // no request to another origin (#45 "Own origin"): fonts, images, scripts and styles all come from here
  page.on("request", (r) => {
    if (!r.url().startsWith(worker.url) && !r.url().startsWith("data:")) errors.push(`request to ${r.url()}`);
  });
  return { page, errors };
}

/** axe-core's serious and critical violations on the page as it stands (evaluated, so the page's CSP holds). */
async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  // a string the browser evaluates (the node project's types have no DOM): axe is the global the source defines
  // violations only: axe skips collecting the passing and incomplete nodes nothing here reads
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as {
    id: string;
    impact: string;
    nodes: { target: string[] }[];
  }[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** axe-core's findings and, at 375 px wide, any horizontal scroll (#45 "One layout"), on the page as it stands. */
async function layoutProblems(page: Page): Promise<string[]> {
  const overflow = (await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")) as number;
  return [...(overflow > 0 ? [`scrolls ${overflow}px sideways at 375 px`] : []), ...(await axeProblems(page))];
}

/** An MCP call (2026-07-28, no elicitation) that needs a person's confirmation: the confirm page's link it answers. */
async function askedToConfirm(): Promise<string> {
  const post = (p: string, body: unknown) => api(p, { method: "POST", body: JSON.stringify(body) });
  const { key } = await post("/v1/api-keys", { name: "assistant", scopes: ["read:contacts", "write:contacts"] });
  const { id } = await post("/v1/contacts", { email: "ask@console-pages.test", firstName: "Asked" });
  const res = await fetch(`${worker.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "contact.suppress",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "contact.suppress",
        arguments: { contactId: id, reason: "asked by phone" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "console-pages", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const { result } = (await res.json()) as { result: { content: { text: string }[] } };
  const link = JSON.parse(result.content[0]!.text).confirmation.url as string;
  expect(new URL(link).origin).toBe(worker.url);
  return link;
}

/** Signs in on the console's own page; lands on a tenant's home unless `lands` says where else. */
async function signIn(page: Page, email: string, password: string, lands: RegExp = /\/app\/t\/[^/]+$/) {
  await page.goto(`${worker.url}/`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(lands);
}

/** Zones around the world, one of which is between 10:00 and 18:00 at any hour of the day (quiet hours). */
const DAYTIME_ZONES = [
  "Pacific/Honolulu",
  "America/Los_Angeles",
  "America/Chicago",
  "America/New_York",
  "America/Sao_Paulo",
  "Atlantic/Azores",
  "Europe/London",
  "Europe/Berlin",
  "Europe/Istanbul",
  "Asia/Dubai",
  "Asia/Karachi",
  "Asia/Dhaka",
  "Asia/Bangkok",
  "Asia/Singapore",
  "Asia/Tokyo",
  "Australia/Sydney",
  "Pacific/Noumea",
  "Pacific/Auckland",
];

/** The label of the campaign form's first email template option (the approved template). */
async function emailTemplateOption(page: Page): Promise<string | null> {
  return page.locator("#template-email option").nth(1).textContent();
}

/** The served Worker's platform admin (test/setup/served-worker.ts bootstrapped it with this password). */
const PLATFORM_ADMIN = { email: "platform@served.test", password: "long enough password" };

beforeAll(async () => {
  const boot = await tenantApi(worker.url, {
    name: TENANT,
    slug: `console-${RUN}`,
    email: OWNER,
  });
  api = boot.api;
  tenantId = boot.tenantId;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  rmSync(outdir, { recursive: true, force: true });
});

describe("the console in headless Chromium", () => {
  it("invite mail -> set password -> the home naming the tenant, signed in", async () => {
    const email = `new.manager.${RUN}@console-pages.test`;
    await api("/v1/users/invite", { method: "POST", body: JSON.stringify({ email, role: "manager" }) });
    const link = linkIn((await mailTo(email)).text, "/setup-password");
    const context = await browser.newContext();
    const { page, errors } = await watched(context);
    await page.goto(link);
    expect(await page.textContent("h1")).toBe("Welcome: set your password");
    await page.getByLabel("Your name").fill("Nora Manager");
    await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("New password again").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.waitForURL(`${worker.url}/app/t/${tenantId}`);
    expect(await page.textContent("h1")).toBe(TENANT);
    // the session is the one model's cookie: HttpOnly, SameSite=Lax, `session` on http://127.0.0.1
    const [cookie] = (await context.cookies()).filter((c) => c.name === "session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    // the link was single use
    const again = await (await browser.newContext()).newPage();
    await again.goto(link);
    await again.getByLabel("Your name").fill("Someone Else");
    await again.getByLabel("New password", { exact: true }).fill(`${PASSWORD}!`);
    await again.getByLabel("New password again").fill(`${PASSWORD}!`);
    await again.getByRole("button", { name: "Set password and sign in" }).click();
    expect(await again.textContent("h1")).toBe("This link does not work");
    expect(errors, errors.join("\n")).toEqual([]);
    await context.close();
  }, 60_000);

  it("reset mail -> new password -> home; the sessions opened before are gone", async () => {
    const email = `front.desk.${RUN}@console-pages.test`;
    // an account of the tenant, through the REST twin of the invite page
    await api("/v1/users/invite", { method: "POST", body: JSON.stringify({ email, role: "tenant_user" }) });
    const token = new URL(linkIn((await mailTo(email)).text, "/setup-password")).searchParams.get("token");
    const setup = await fetch(`${worker.url}/auth/setup-password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ inviteToken: token, name: "Fran Desk", password: PASSWORD }),
    });
    expect(setup.status).toBe(200);
    // an earlier session in another browser, and an API token
    const earlier = await browser.newContext();
    const before = await earlier.newPage();
    await signIn(before, email, PASSWORD);
    const login = await fetch(`${worker.url}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD }),
    }).then((r) => r.json() as Promise<{ token: string }>);

    const context = await browser.newContext();
    const { page, errors } = await watched(context);
    await page.goto(`${worker.url}/`);
    await page.getByRole("link", { name: /forgot/i }).click();
    await page.waitForURL(/\/app\/forgot-password$/);
    const sent = new Set<string>((await platform(`/admin/outbox?limit=200`)).data.map((m: { id: string }) => m.id));
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    const link = linkIn((await mailTo(email, sent)).text, "/reset-password");
    await page.goto(link);
    expect(await page.textContent("h1")).toBe("Choose a new password");
    const fresh = "a brand new passphrase";
    await page.getByLabel("New password", { exact: true }).fill(fresh);
    await page.getByLabel("New password again").fill(fresh);
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.waitForURL(`${worker.url}/app/t/${tenantId}`);
    expect(await page.textContent("h1")).toBe(TENANT);

    // the other browser's session ended with the reset: its next page is the sign-in page
    await before.goto(`${worker.url}/app/t/${tenantId}`);
    expect(new URL(before.url()).pathname).toBe("/");
    expect(await before.textContent("h1")).toContain("Sign in to");
    // and so did the API token
    const me = await fetch(`${worker.url}/me`, { headers: { authorization: `Bearer ${login.token}` } });
    expect(me.status).toBe(401);
    // the old password no longer signs in; the new one does
    await signIn(before, email, fresh);
    expect(errors, errors.join("\n")).toEqual([]);
    await earlier.close();
    await context.close();
  }, 90_000);

  it("an API key minted, copied, used once and revoked; the audit log exported and its CSV parsed", async () => {
    const context = await browser.newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: worker.url });
    const { page, errors } = await watched(context);
    await signIn(page, OWNER, "long enough password");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name (what uses it)").fill("Browser key");
    await page.getByRole("checkbox", { name: /^write:inbox/ }).check();
    await page.getByRole("button", { name: "Make the key" }).click();
    const key = await page.getByLabel("The key", { exact: true }).inputValue();
    expect(key).toMatch(/^rk_live_/);
    await page.getByRole("button", { name: "Copy the key" }).click();
    await expect.poll(() => page.evaluate("navigator.clipboard.readText()")).toBe(key);
    expect(await page.textContent("#live-status")).toBe("Key copied to the clipboard.");
    const use = () =>
      fetch(`${worker.url}/v1/reviews`, { headers: { authorization: `Bearer ${key}`, "x-tenant-id": tenantId } });
    expect((await use()).status).toBe(200);
    await page.goto(`${worker.url}/app/t/${tenantId}/api-keys`);
    expect(await page.content()).not.toContain(key);
    await page.getByRole("button", { name: "Revoke the key Browser key" }).click();
    expect(await page.getByRole("status").first().textContent()).toContain("The key is revoked");
    await expect.poll(async () => (await use()).status, { timeout: 15_000 }).toBe(401);

    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByLabel("Action").fill("api_key.created");
    await page.getByRole("button", { name: "Filter" }).click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export these as CSV" }).click(),
    ]);
    // saved through the connection: the run's browser is shared (test/setup/chromium.ts), its own path is remote
    const csvFile = path.join(outdir, "audit.csv");
    await download.saveAs(csvFile);
    const rows = Papa.parse<Record<string, string>>(readFileSync(csvFile, "utf8"), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(rows.map((r) => [r.action, JSON.parse(r.nextState!).name])).toEqual([["api_key.created", "Browser key"]]);
    expect(errors, errors.join("\n")).toEqual([]);
    await context.close();
  }, 60_000);

  it("an inbox item assigned and replied by a team member (the AI draft, edited), approved and published by a manager with the keyboard only, seen published; a viewer cannot approve", async () => {
    const person = (role: string) => `${role}.${RUN}@console-pages.test`;
    for (const [role, name] of [
      ["tenant_user", "Tess Member"],
      ["manager", "Mona Manager"],
      ["viewer", "Vic Viewer"],
    ] as const)
      await platform(`/agency/tenants/${tenantId}/users`, {
        method: "POST",
        body: JSON.stringify({ email: person(role), name, role, password: "long enough password" }),
      });
    const location = await api("/v1/locations", { method: "POST", body: JSON.stringify({ name: "Harbour Quay" }) });
    const review = await api("/v1/reviews/ingest", {
      method: "POST",
      body: JSON.stringify({
        locationId: location.id,
        siteType: "first_party",
        rating: 2,
        text: "Waited forty minutes at the front desk.",
        authorName: "Ann",
      }),
    });

    // the team member: the item from the inbox, assigned to themself, a draft written and submitted
    const memberContext = await browser.newContext();
    const { page: member, errors } = await watched(memberContext);
    await signIn(member, person("tenant_user"), "long enough password");
    await member.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Inbox" }).click();
    const itemLink = member.getByRole("link", { name: "Review at Harbour Quay" });
    // the item is made by the event consumer: reload until it is listed
    await expect
      .poll(
        async () => {
          if (await itemLink.count()) return 1;
          await member.reload();
          return 0;
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    await itemLink.click();
    await member.getByLabel("Assign to").selectOption({ label: "Tess Member" });
    await member.getByRole("button", { name: "Assign", exact: true }).click();
    expect(await member.getByRole("status").first().textContent()).toContain("Assigned.");
    // the AI draft (the dev setup's built-in engine: no AI binding), read, edited and saved, then submitted
    await member.getByRole("button", { name: "Draft one with AI" }).click();
    expect(await member.getByRole("status").first().textContent()).toContain("A draft was written");
    expect(await member.textContent("main")).toContain("Draft (written by AI)");
    const edit = member.getByLabel("Edit the reply");
    const drafted = await edit.inputValue();
    expect(drafted.length).toBeGreaterThan(20);
    const replyText = `${drafted.trim()} We have added a second receptionist in the mornings.`;
    await edit.fill(replyText);
    await member.getByRole("button", { name: "Save the draft" }).click();
    expect(await member.getByRole("status").first().textContent()).toContain("The draft is saved.");
    await member.getByRole("button", { name: "Submit for approval" }).click();
    expect(await member.textContent("main")).toContain("Waiting for approval since");
    expect(await member.getByRole("button", { name: "Approve", exact: true }).count()).toBe(0);
    const itemUrl = member.url();

    // the viewer: the reply is in the queue, no Approve button; a forged post (with the session's own CSRF
    // token, from this origin) is refused with the role's sentence
    const viewerContext = await browser.newContext();
    const { page: viewer, errors: viewerErrors } = await watched(viewerContext);
    await signIn(viewer, person("viewer"), "long enough password");
    await viewer.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Approvals" }).click();
    expect(await viewer.textContent("main")).toContain("We have added a second receptionist in the mornings.");
    expect(await viewer.getByRole("button", { name: "Approve", exact: true }).count()).toBe(0);
    const replyId = ((await api(`/v1/reviews/${review.id}/responses`)) as unknown as { id: string }[])[0]!.id;
    const csrf = await viewer.locator('input[name="csrf"]').first().inputValue();
    const forged = await viewer.request.post(`${worker.url}/app/t/${tenantId}/replies/${replyId}/approve`, {
      form: { csrf, back: `/app/t/${tenantId}/approvals` },
      headers: { origin: worker.url },
    });
    expect(await forged.text()).toContain("Your role here (Viewer) does not allow this.");

    // the manager, keyboard only: Tab to Approve, Enter; Tab to Publish, Space
    const managerContext = await browser.newContext();
    const { page: manager, errors: managerErrors } = await watched(managerContext);
    await signIn(manager, person("manager"), "long enough password");
    await manager.goto(`${worker.url}/app/t/${tenantId}/approvals`);
    const tabTo = async (name: string) => {
      for (let i = 0; i < 80; i++) {
        await manager.keyboard.press("Tab");
        if ((await manager.evaluate("document.activeElement?.textContent?.trim()")) === name) return;
      }
      throw new Error(`Tab never reached "${name}"`);
    };
    await tabTo("Approve");
    await Promise.all([manager.waitForURL(/approvals/), manager.keyboard.press("Enter")]);
    expect(await manager.getByRole("status").first().textContent()).toContain("Approved: it can be published now.");
    await manager.goto(itemUrl);
    await tabTo("Publish on our own page");
    await Promise.all([manager.waitForLoadState("load"), manager.keyboard.press("Space")]);
    await expect.poll(() => manager.textContent("main")).toContain("Published on our review page");

    // the team member sees it published, as edited
    await member.reload();
    expect(await member.textContent("main")).toContain("Published on our review page");
    expect(await member.locator("pre.copy").first().textContent()).toBe(replyText);
    expect([...errors, ...viewerErrors, ...managerErrors]).toEqual([]);
    await Promise.all([memberContext.close(), viewerContext.close(), managerContext.close()]);
  }, 90_000);

  it.concurrent("every page: axe-core finds no serious or critical violation, the console shows no error", async ({
    expect,
  }) => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const { page, errors } = await watched(context);
    const problems: Record<string, string[]> = {};
    const check = async (url: string, on: Page = page) => {
      const res = await on.goto(`${worker.url}${url}`);
      expect(res?.status(), url).toBeLessThan(500);
      const found = await layoutProblems(on);
      if (found.length) problems[url] = found;
    };
    // signed out
    for (const url of ["/", "/app/forgot-password", "/setup-password?token=x", "/reset-password?token=x"])
      await check(url);
    // signed in, as the tenant's admin; a live key and a pending invite, so every table has a row
    await api("/v1/api-keys", { method: "POST", body: JSON.stringify({ name: "Checked by axe" }) });
    await api("/v1/users/invite", {
      method: "POST",
      body: JSON.stringify({ email: `pending.${RUN}@console-pages.test`, role: "viewer" }),
    });
    // a review with a reply waiting for approval: the review page, its inbox item and the queue show them
    const quay = await api("/v1/locations", { method: "POST", body: JSON.stringify({ name: "Axe Quay" }) });
    const review = await api("/v1/reviews/ingest", {
      method: "POST",
      body: JSON.stringify({
        locationId: quay.id,
        siteType: "google",
        rating: 3,
        text: "Fine, but slow.",
        authorName: "Bo",
      }),
    });
    const reply = await api(`/v1/reviews/${review.id}/responses`, {
      method: "POST",
      body: JSON.stringify({ text: "Thank you, Bo." }),
    });
    await api(`/v1/responses/${reply.id}/submit`, { method: "POST" });
    await expect
      .poll(async () => (await api(`/v1/inbox?locationId=${quay.id}`)).data.length, { timeout: 15_000 })
      .toBe(1);
    const itemId = (await api(`/v1/inbox?locationId=${quay.id}`)).data[0].id as string;
    // the places pages' rows: a location, a connection, an email sender, a review link, a widget, an alert
    const post = (p: string, body: unknown, method = "POST") => api(p, { method, body: JSON.stringify(body) });
    const place = await post("/v1/locations", { name: "Harbour Street", googlePlaceId: "ChIJaxe" });
    await post("/v1/integrations", {
      connectorType: "hubspot",
      name: "Our CRM",
      credentials: { accessToken: "axe-token" },
    });
    await post(
      "/v1/settings/email",
      { provider: "sendgrid", fromAddress: "hi@harbour.test", fromName: "Harbour", credentials: { apiKey: "axe-key" } },
      "PUT",
    );
    const link = await post("/v1/review-links", { locationId: place.id, weights: { google: 1 } });
    const widget = await post("/v1/widgets", { name: "Homepage" });
    const alert = await post("/v1/alert-subscriptions", { instantEmail: true, maxRating: 2 });
    // single sign-on set up from an IdP's metadata: its certificate table has a row
    await post("/v1/settings/sso/metadata", { metadataXml: idpMetadataXml([KEYS.idp1.cert]) });
    await signIn(page, OWNER, "long enough password");
    for (const url of [
      `/reviews/${review.id}`,
      `/inbox/${itemId}?type=review`,
      "",
      "/inbox",
      "/approvals",
      "/approvals?status=rejected",
      "/reviews",
      "/settings",
      "/team",
      "/api-keys",
      "/sso",
      "/locations",
      `/locations/${place.id}`,
      "/integrations",
      "/messaging",
      "/review-links",
      // its QR code from the public route, as an image of this origin
      `/review-links/${link.id}`,
      "/widgets",
      // the preview: the public widget page in a frame of this origin (frame-src 'self')
      `/widgets/${widget.id}`,
      "/alerts",
      `/alerts/${alert.id}`,
    ])
      await check(`/app/t/${tenantId}${url}`);
    await check(`/app/t/${tenantId}/audit`);
    // the audit log's rows open their before and after (details) as a person reads them
    await page
      .locator("table.rows details")
      .first()
      .evaluate((d) => d.setAttribute("open", ""));
    const opened = await axeProblems(page);
    if (opened.length) problems["audit log, a change opened"] = opened;
    // webhooks, automation and the data export, each with a row: an endpoint, a rule, an export
    const hook = await post("/v1/webhooks", { url: "https://hooks.example.com/axe", events: ["review.created"] });
    const rule = await post("/v1/automation-rules", {
      name: "Tag new reviews",
      triggerEventType: "review.created",
      conditions: [{ field: "rating", op: "lte", value: 2 }],
      actions: [{ type: "add_tags", config: { tags: ["low"] } }],
    });
    const started = await post("/v1/exports", {});
    // the white-label page with a hostname waiting for its DNS records (no provider here: seeded as the create leaves it)
    const now = new Date().toISOString();
    const seeded = await worker.db
      .prepare(
        "insert into custom_hostnames (id, scope, scope_id, agency_id, hostname, status, ssl_status, verification, ownership_token, claimed_at, created_at, updated_at) " +
          "select ?, 'tenant', id, agency_id, ?, 'pending', 'pending_validation', '{}', 'rops-verify=axe', ?, ?, ? from tenants where id = ?",
      )
      .bind(`axehost${RUN}`, `reviews-${RUN}.axe-harbour.test`, now, now, now, tenantId)
      .run();
    expect(seeded.meta.changes).toBe(1);
    for (const url of [
      "/white-label",
      "/webhooks",
      `/webhooks/${hook.id}`,
      "/automation",
      "/automation?action=notify_email",
      `/automation/${rule.id}`,
      "/data-export",
      `/data-export/${started.id}`,
    ])
      await check(`/app/t/${tenantId}${url}`);
    // the contacts pages and the compliance view, each with a row: a contact with a consent, and a request the
    // policy refused (no phone for an SMS), which the contact's messages and the refusals show
    const contact = await post("/v1/contacts", { email: `axe.${RUN}@console-pages.test`, firstName: "Axe" });
    await post(`/v1/contacts/${contact.id}/consent`, { channel: "email", source: "front desk" });
    await api("/v1/solicitations", {
      method: "POST",
      headers: { "idempotency-key": `axe-${RUN}` },
      body: JSON.stringify({ locationId: place.id, contactId: contact.id, channel: "sms" }),
    });
    for (const url of ["/contacts", `/contacts/${contact.id}`, "/contacts/import", "/compliance"])
      await check(`/app/t/${tenantId}${url}`);
    // an export started from its page: the progress updates without a reload (client/export-progress.tsx)
    await page.goto(`${worker.url}/app/t/${tenantId}/data-export`);
    await page.getByRole("button", { name: "Start the export" }).click();
    await page.waitForURL(/\/data-export\/[^/]+$/);
    await page.evaluate("window.__samePage = true");
    await page.getByRole("link", { name: "Download the file" }).waitFor({ timeout: 20_000 });
    expect(await page.evaluate("window.__samePage")).toBe(true);
    expect(await page.locator("#export-live [role=status]").textContent()).toMatch(
      /^The file is ready: [\d,]+ rows\.$/,
    );
    // review requests, each list with a row: a template, a campaign with it sent to a contact, an experiment
    const template = await post("/v1/templates", {
      name: "Axe SMS",
      channel: "sms",
      bodyText: "Hi {{firstName}}, review us: {{reviewLink}}",
    });
    await post(`/v1/templates/${template.id}/approve`, {});
    const campaign = await post("/v1/campaigns", { name: "Axe campaign", type: "drip", channels: ["email", "sms"] });
    await post(`/v1/campaigns/${campaign.id}/templates`, { templateId: template.id, channel: "sms" });
    await api(`/v1/campaigns/${campaign.id}/sequence`, {
      method: "PUT",
      body: JSON.stringify({
        steps: [
          { stepIndex: 0, channel: "email", delayDays: 0 },
          { stepIndex: 1, channel: "sms", delayDays: 3 },
        ],
      }),
    });
    await post("/v1/contacts", { email: `axe.${RUN}@console-pages.test`, firstName: "Axe" });
    await post(`/v1/campaigns/${campaign.id}/send`, { locationId: place.id, channel: "email" });
    const experiment = await post("/v1/experiments", {
      name: "Axe test",
      hypothesis: "Shorter wins",
      campaignId: campaign.id,
      variants: [
        { name: "Control", trafficPercent: 50 },
        { name: "Short", trafficPercent: 50, templateId: template.id },
      ],
    });
    for (const url of [
      "/requests",
      "/campaigns",
      `/campaigns/${campaign.id}`,
      "/templates",
      `/templates/${template.id}`,
      "/experiments",
      `/experiments/${experiment.id}`,
      "/solicitations",
    ])
      await check(`/app/t/${tenantId}${url}`);
    // the template's preview follows the typing (client/template-preview.tsx), on the page as loaded
    await page.goto(`${worker.url}/app/t/${tenantId}/templates/${template.id}`);
    await page.getByLabel("Message", { exact: true }).fill("Hello {{firstName}}, one tap: {{reviewLink}}");
    await page
      .locator("#template-preview pre")
      .filter({ hasText: "Hello Jane, one tap:" })
      .waitFor({ timeout: 10_000 });
    await check("/app/me");
    await check("/app/connected-apps");
    await check("/app/tenants");
    // the confirm page of an assistant's call (issue #45 item 8): an API key's contact.suppress without elicitation
    const confirmPath = new URL(await askedToConfirm()).pathname;
    await check(confirmPath);
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    await page.waitForURL(`${worker.url}${confirmPath}`);
    expect(await page.textContent("main")).toContain("You confirmed it");
    await check(confirmPath);
    // the platform admin's pages (and the agency page, which the platform admin opens for every agency)
    const platformContext = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const admin = await watched(platformContext);
    await signIn(admin.page, PLATFORM_ADMIN.email, PLATFORM_ADMIN.password, /\/app\/(tenants|t\/[^/]+)$/);
    for (const url of ["/app/platform", "/app/platform/tenants", "/app/platform/dead-letters", "/app/agency"])
      await check(url, admin.page);
    expect(problems).toEqual({});
    expect(errors, errors.join("\n")).toEqual([]);
    expect(admin.errors, admin.errors.join("\n")).toEqual([]);
    await context.close();
    await platformContext.close();
    // a hang guard only: some forty pages, each through axe-core, on 2 cores beside the rest of the suite
  }, 240_000);

  it.concurrent("a CSV of 1,000 contacts with 3 bad rows imported through the page: its progress to the end without a reload, the bad rows by number and reason, 997 contacts", async ({
    expect,
  }) => {
    const rows = Array.from({ length: 1000 }, (_, i) => `bulk-${i}.${RUN}@import.test,Bulk,${i}`);
    rows[99] = "not-an-email,Bad,99";
    rows[499] = ",Nobody,499";
    rows[999] = "also bad,Bad,999";
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const { page, errors } = await watched(context);
    await signIn(page, OWNER, "long enough password");
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Contacts" }).click();
    await page.getByRole("link", { name: "Import contacts from a CSV file" }).click();
    await page.getByLabel("CSV file").setInputFiles({
      name: "customers.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(["email,first_name,last_name", ...rows].join("\n")),
    });
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await page.waitForURL(/\/contacts\/import\/job_[^/]+$/);
    // the job's own address survives a reload; from here the page updates itself
    await page.reload();
    await page.evaluate("window.__samePage = true");
    const status = page.locator("#import-live [role=status]");
    await expect.poll(() => status.textContent(), { timeout: 45_000 }).toBe("Done: 997 imported, 3 rows refused.");
    expect(await page.evaluate("window.__samePage")).toBe(true);
    expect(await page.evaluate("document.querySelector('#import-live progress').value")).toBe(1000);
    expect(await page.locator("#import-live tbody").locator("th, td").allTextContents()).toEqual([
      "100",
      "email: Invalid email address",
      "500",
      "email: email or phone is required",
      "1000",
      "email: Invalid email address",
    ]);
    expect(await layoutProblems(page)).toEqual([]);
    expect((await api(`/v1/contacts?search=bulk-&limit=1`)).total).toBe(997);
    expect(errors, errors.join("\n")).toEqual([]);
    await context.close();
  }, 90_000);

  it.concurrent("a new customer from nothing to a first review request sent, only through the console: an agency admin adds the business and invites its owner; the owner sets a password, adds a location and a template, imports contacts and sends", async ({
    expect,
  }) => {
    // the agency and its admin, as the platform admin makes them (the admin's invite accepted over REST)
    const adminEmail = `agency.admin.${RUN}@console-pages.test`;
    await platform("/admin/agencies", {
      method: "POST",
      body: JSON.stringify({ name: `Bright Agency ${RUN}`, slug: `bright-${RUN}`, adminEmail, adminName: "Ada Agent" }),
    });
    const token = new URL(linkIn((await mailTo(adminEmail)).text, "/setup-password")).searchParams.get("token");
    const accepted = await fetch(`${worker.url}/auth/setup-password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ inviteToken: token, name: "Ada Agent", password: PASSWORD }),
    });
    expect(accepted.status).toBe(200);

    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const { page, errors } = await watched(context);
    const problems: Record<string, string[]> = {};
    const axe = async (name: string) => {
      const found = await layoutProblems(page);
      if (found.length) problems[name] = found;
    };
    // no business yet: the switcher says where to start
    await signIn(page, adminEmail, PASSWORD, /\/app\/tenants$/);
    expect(await page.textContent("main")).toContain("Your agency has no business yet");
    await page.getByRole("link", { name: "Agency", exact: true }).click();
    await page.waitForURL(`${worker.url}/app/agency`);
    expect(await page.textContent("main")).toContain("No business yet. Add the first one below");
    await axe("agency page, empty");

    const business = `Seaside Smiles ${RUN}`;
    const owner = `seaside.owner.${RUN}@console-pages.test`;
    await page.getByLabel("Business name").fill(business);
    await page.getByLabel("Plan").selectOption("growth");
    await page.getByLabel("Email").fill(owner);
    await page.getByLabel("Name (optional)").fill("Sam Seaside");
    await page.getByRole("button", { name: "Add the business and invite its owner" }).click();
    await page.waitForURL(`${worker.url}/app/agency`);
    expect(await page.getByRole("status").first().textContent()).toBe(
      `${business} is added. An invite is on its way to ${owner}.`,
    );
    expect(await page.getByRole("row").filter({ hasText: business }).count()).toBe(1);
    await axe("agency page, a business");
    // the agency's own white label, through its link on the agency page
    await page.getByRole("link", { name: "White label", exact: true }).click();
    await page.waitForURL(/\/app\/agency\/[^/]+\/white-label$/);
    expect(await page.textContent("h1")).toBe("Your agency's white label");
    await axe("agency white label");
    await page.goBack();

    // into the business without signing in again: the agency admin is its admin
    await page.getByRole("link", { name: business }).click();
    await page.waitForURL(/\/app\/t\/[^/]+$/);
    const newTenant = new URL(page.url()).pathname.split("/").pop();
    expect(await page.textContent("h1")).toBe(business);
    expect(await page.textContent("header")).toContain("Admin (agency)");

    // the owner's invite: its link opens the set-password page, which lands on the new business's home
    const link = linkIn((await mailTo(owner)).text, "/setup-password");
    const ownerContext = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const ownerPage = await watched(ownerContext);
    await ownerPage.page.goto(link);
    expect(await ownerPage.page.textContent("h1")).toBe("Welcome: set your password");
    await ownerPage.page.getByLabel("Your name").fill("Sam Seaside");
    await ownerPage.page.getByLabel("New password", { exact: true }).fill(PASSWORD);
    await ownerPage.page.getByLabel("New password again").fill(PASSWORD);
    await ownerPage.page.getByRole("button", { name: "Set password and sign in" }).click();
    await ownerPage.page.waitForURL(`${worker.url}/app/t/${newTenant}`);
    expect(await ownerPage.page.textContent("h1")).toBe(business);
    expect(await ownerPage.page.textContent("header")).toContain("Admin");

    // ... and the owner, from nothing to a first review request sent, only through the console (#46)
    const op = ownerPage.page;
    // a location in a time zone where it is daytime now: the default quiet hours (21:00-08:00) would hold the send
    const hourIn = (timeZone: string) =>
      Number(new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", hourCycle: "h23" }).format(new Date()));
    const zone = DAYTIME_ZONES.find((z) => hourIn(z) >= 10 && hourIn(z) < 18)!;
    await op.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Settings" }).click();
    await op.getByRole("link", { name: "Locations", exact: true }).click();
    expect(await op.textContent("main")).toContain("Add a location");
    await op.getByLabel("Name", { exact: true }).fill("Seaside Smiles, Harbour Road");
    await op.getByLabel("Time zone").selectOption(zone);
    await op.getByRole("button", { name: "Add the location" }).click();
    await expect.poll(() => op.getByRole("row").filter({ hasText: "Seaside Smiles, Harbour Road" }).count()).toBe(1);

    // the message: a template, created as a draft and approved
    await op.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Requests" }).click();
    await op.getByRole("link", { name: "Write a template" }).click();
    const draft = op.getByRole("region", { name: "New template" });
    await draft.getByLabel("Template name").fill("After the visit");
    await draft.getByLabel("Channel", { exact: true }).selectOption("email");
    await draft.getByLabel("Subject (email only)").fill("How was your visit, {{firstName}}?");
    await draft.getByRole("button", { name: "Create the draft" }).click();
    await op.waitForURL(/\/templates\/[^/]+$/);
    await op.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => op.textContent("main")).toContain("approved");

    // the customers: a CSV of three
    const customers = ["ann", "bob", "cem"].map((n) => `${n}.${RUN}@seaside.test`);
    await op.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Contacts" }).click();
    await op.getByRole("link", { name: "Import contacts from a CSV file" }).click();
    await op.getByLabel("CSV file").setInputFiles({
      name: "customers.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(["email,first_name,last_name", ...customers.map((e, i) => `${e},Guest,${i}`)].join("\n")),
    });
    await op.getByRole("button", { name: "Import", exact: true }).click();
    await op.waitForURL(/\/contacts\/import\/job_[^/]+$/);
    await expect
      .poll(() => op.locator("#import-live [role=status]").textContent(), { timeout: 30_000 })
      .toBe("Done: 3 imported, 0 rows refused.");

    // the business's own rule: these customers asked for their visit by email, so email needs no recorded consent
    // (the default asks for one, and the import page says so)
    await op.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Settings" }).click();
    await op.getByRole("link", { name: "Compliance", exact: true }).click();
    await op.getByLabel("Email needs a recorded consent").uncheck();
    await op.getByRole("button", { name: "Save the rules" }).click();
    await expect.poll(() => op.getByLabel("Email needs a recorded consent").isChecked()).toBe(false);

    // the campaign with that template, sent from its page to every contact
    await op.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Requests" }).click();
    await op.getByRole("link", { name: "Create a campaign" }).click();
    const campaign = op.getByRole("region", { name: "New campaign" });
    await campaign.getByLabel("Campaign name").fill("First thank-you");
    await campaign.getByLabel("Email template").selectOption({ label: (await emailTemplateOption(op))! });
    await campaign.getByRole("button", { name: "Create the campaign" }).click();
    await op.waitForURL(/\/campaigns\/[^/]+$/);
    const send = op.getByRole("region", { name: "Send", exact: true });
    await send.getByLabel("Location", { exact: true }).selectOption({ label: "Seaside Smiles, Harbour Road" });
    await send.getByLabel("Channel", { exact: true }).selectOption("email");
    await send.getByRole("button", { name: "Send now" }).click();
    await op.waitForURL(/\/campaigns\/[^/]+$/);
    expect(await op.getByRole("status").first().textContent()).toBe(
      "3 of 3 messages are queued; 0 refused by the sending policy. The progress shows below.",
    );
    // the page follows the send to its end by itself
    await expect
      .poll(() => op.locator("#campaign-live [role=status]").textContent(), { timeout: 45_000 })
      .toBe("Nothing is waiting: every message has gone to the providers or was refused by the sending policy.");
    await axe("campaign page, sent");
    // each customer's request is in the sent requests, and its mail (the dev mailbox) carries the review link
    await op.getByRole("link", { name: "Sent requests" }).first().click();
    for (const email of customers) {
      expect(await op.getByRole("row").filter({ hasText: email }).count()).toBe(1);
      expect((await mailTo(email)).text).toContain("thank you for visiting Seaside Smiles, Harbour Road");
    }
    await axe("sent requests");

    expect(problems).toEqual({});
    expect(errors, errors.join("\n")).toEqual([]);
    expect(ownerPage.errors, ownerPage.errors.join("\n")).toEqual([]);
    await context.close();
    await ownerContext.close();
  }, 150_000);
});

// The console's weight budget (#45 "Budgets"): each page's HTML with the stylesheet and script it loads stays
// under 60 KB gzipped, as a browser on a phone downloads it. Speed is measured in `npm run bench`, not here.
import { beforeAll, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { confirmationLink, statelessCall } from "../mcp/helpers";
import { ingest, newLocation } from "../reviews/helpers";
import { ConsoleBrowser } from "./helpers";

const BUDGET_BYTES = 60 * 1024;
let w: World;
let b: ConsoleBrowser;
beforeAll(async () => {
  w = await createWorld();
  b = new ConsoleBrowser();
  await b.signIn(w.users.tenantAdmin.email);
});

const gzipSize = async (text: string) =>
  (await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer()).byteLength;

it("each page's HTML, CSS and script stay under 60 KB gzipped", async () => {
  const t = `/app/t/${w.tenantA.id}`;
  // the confirm page of an assistant's call (an API key's, which a manager may confirm)
  const key = (
    await w.as("tenantAdmin").post("/v1/api-keys", { name: "budget", scopes: ["read:contacts", "write:contacts"] })
  ).body.key;
  const contactId = (await w.as("manager").post("/v1/contacts", { email: "budget@example.com" })).body.id;
  const asked = await statelessCall(key, "contact.suppress", { contactId, reason: "budget" });
  const confirm = new URL(confirmationLink(asked.result)!).pathname;
  // review requests: a campaign's page (its figures, send form, templates, sequence) and a template's editor
  const campaign = (
    await w.as("manager").post("/v1/campaigns", { name: "Budget", type: "drip", channels: ["email", "sms"] })
  ).body.id;
  const template = (await w.as("manager").post("/v1/templates", { name: "Budget", channel: "sms", bodyText: "Hi" }))
    .body.id;
  // a review with a reply waiting for approval: its page, its inbox item (the review's id) and the queue show them
  const review = await ingest(w, {
    locationId: (await newLocation(w)).id,
    siteType: "google",
    rating: 2,
    text: "Waited forty minutes past my appointment time.",
    authorName: "Tom R.",
  });
  const reply = (await w.as("tenantUser").post(`/v1/reviews/${review.id}/responses`, { text: "Sorry, Tom." })).body;
  expect((await w.as("tenantUser").post(`/v1/responses/${reply.id}/submit`, {})).status).toBe(200);
  for (const path of [
    "/app/tenants",
    "/app/me",
    t,
    `${t}/inbox`,
    `${t}/inbox/${review.id}?type=review`,
    `${t}/approvals`,
    `${t}/reviews`,
    `${t}/reviews/${review.id}`,
    `${t}/settings`,
    `${t}/team`,
    `${t}/api-keys`,
    `${t}/audit`,
    `${t}/webhooks`,
    `${t}/automation?action=notify_email`,
    `${t}/data-export`,
    `${t}/requests`,
    `${t}/campaigns`,
    `${t}/campaigns/${campaign}`,
    `${t}/templates`,
    `${t}/templates/${template}`,
    `${t}/experiments`,
    `${t}/solicitations`,
    "/app/connected-apps",
    // the places pages: their forms (every provider's fields, the time zones) included
    `${t}/locations`,
    `${t}/integrations`,
    `${t}/messaging`,
    `${t}/review-links`,
    `${t}/widgets`,
    `${t}/alerts`,
    // the contacts pages and the compliance view (its settings form included)
    `${t}/contacts`,
    `${t}/contacts/${contactId}`,
    `${t}/contacts/import`,
    `${t}/compliance`,
    confirm,
  ]) {
    const page = await b.get(path);
    expect(page.status, path).toBe(200);
    const assets = [...page.text.matchAll(/(?:href|src)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length, path).toBeGreaterThanOrEqual(2);
    let total = await gzipSize(page.text);
    for (const asset of assets) total += await gzipSize((await b.get(asset)).text);
    expect(total, path).toBeLessThan(BUDGET_BYTES);
  }
  // the pages outside a tenant, as the platform admin opens them
  const platform = new ConsoleBrowser();
  await platform.seededSession(w.users.platformAdmin.id);
  for (const path of ["/app/agency", "/app/platform", "/app/platform/tenants", "/app/platform/dead-letters"]) {
    const page = await platform.get(path);
    expect(page.status, path).toBe(200);
    expect(await gzipSize(page.text), path).toBeLessThan(BUDGET_BYTES);
  }
  const signedOut = new ConsoleBrowser();
  for (const path of ["/", "/app/forgot-password"]) {
    const page = await signedOut.get(path);
    expect(page.status, path).toBe(200);
    expect(await gzipSize(page.text), path).toBeLessThan(BUDGET_BYTES);
  }
});

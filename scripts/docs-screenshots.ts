// `npm run docs:screenshots`: a PNG of each console page for docs/console.md (#45 "Docs"), made the way a
// person sees them. Serves the built Worker from workerd with this run's own secrets (bench/lib/server.mjs,
// made as `npm run dev` makes them), seeds a small tenant over REST (a location, reviews, a reply waiting
// for approval, a teammate, an API key), signs in through the console's own form in headless Chromium and
// saves docs/console/<page>.png at 1280x800 (and the home at 375 px). The pages come from the console's
// one list of sections (src/modules/console/sections.ts) plus the detail pages: a page added there is
// photographed on the next run.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { bootstrap } from "../bench/lib/bootstrap.mjs";
import { startServer } from "../bench/lib/server.mjs";
import { TENANT_SECTIONS } from "../src/modules/console/sections";
import { CHROMIUM, CHROMIUM_LAUNCH_ARGS } from "../test/node/helpers/browser-launch";

const OUT = path.join(import.meta.dirname, "../docs/console");
const PASSWORD = "bench-password-1";

const { mf, url } = await startServer({});
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_LAUNCH_ARGS });
try {
  const session = await bootstrap(url, { tenantName: "Harbour Dental", tenantSlug: "harbour-dental" });
  const api = async (p: string, body?: unknown) => {
    const res = await fetch(`${url}${p}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...session.headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? {} : res.json();
  };
  const quay = await api("/v1/locations", { name: "Harbour Dental Quay", city: "Portsmouth" });
  await api("/v1/locations", { name: "Harbour Dental Old Town", city: "Portsmouth" });
  const reviews = [
    { rating: 5, text: "Lovely team, and the hygienist explained everything.", authorName: "Priya S." },
    { rating: 2, text: "Waited forty minutes past my appointment time.", authorName: "Tom R." },
    { rating: 4, text: "Good care; parking is hard to find.", authorName: "Ana L." },
  ];
  const ingested = [];
  for (const [i, r] of reviews.entries())
    ingested.push(await api("/v1/reviews/ingest", { locationId: quay.id, siteType: i ? "google" : "yelp", ...r }));
  const late = ingested[1];
  const reply = await api(`/v1/reviews/${late.id}/responses`, {
    text: "Tom, we are sorry for the wait. We have added a second receptionist in the mornings.",
  });
  await api(`/v1/responses/${reply.id}/submit`, {});
  await api("/v1/users/invite", { email: "mona@harbour-dental.test", role: "manager" });
  await api("/v1/api-keys", { name: "Front-desk tablet" });
  const t = `/app/t/${session.tenantId}`;
  const pages: [string, string][] = [
    ["sign-in", "/"],
    ...TENANT_SECTIONS.map((s): [string, string] => [s.key, `${t}${s.path}`]),
    // a review's inbox item has the review's id (inbox/service.ts)
    ["inbox-item", `${t}/inbox/${late.id}?type=review`],
    ["review", `${t}/reviews/${late.id}`],
    ["tenants", "/app/tenants"],
    ["me", "/app/me"],
  ];
  mkdirSync(OUT, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.screenshot({ path: path.join(OUT, "sign-in.png") });
  await page.getByLabel("Email").fill("bench@example.test");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/app\//);
  for (const [name, address] of pages.slice(1)) {
    const res = await page.goto(`${url}${address}`);
    if (!res || res.status() >= 400) throw new Error(`${address}: ${res?.status()}`);
    await page.screenshot({ path: path.join(OUT, `${name}.png`) });
    process.stdout.write(`docs/console/${name}.png\n`);
  }
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${url}${t}`);
  await page.screenshot({ path: path.join(OUT, "home-375.png") });
  process.stdout.write("docs/console/home-375.png\n");
} finally {
  await browser.close();
  await mf.dispose();
}

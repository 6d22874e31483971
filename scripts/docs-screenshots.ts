// `npm run docs:screenshots`: a PNG of each console page for docs/console.md (#45 "Docs"), made the way a
// person sees them. Serves the built Worker from workerd with this run's own secrets (bench/lib/server.mjs,
// made as `npm run dev` makes them), seeds a small tenant over REST (two locations, reviews with text and
// ratings and their inbox items, a reply waiting for approval, a teammate, a pending invite, a contact, an API
// key), signs in as the tenant's own admin through the console's form in headless Chromium and saves
// docs/console/<page>.png at 1280x800 (and the home at 375 px). Then it rewrites docs/console.md's
// Screenshots grid (between its `screenshots:` markers) from what it saved.
//
// The pages come from the console's one list of routes (src/modules/console/routes.ts): every GET page
// without an id that answers the tenant's admin with a page, and each page with an id (`/locations/:id`)
// opened through the first link to it found on the pages before. A page added there is photographed on the
// next run, with its rows if the seed below gives it any.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { bootstrap } from "../bench/lib/bootstrap.mjs";
import { startServer } from "../bench/lib/server.mjs";
import { consoleRoutes } from "../src/modules/console/routes";
import { CHROMIUM, CHROMIUM_LAUNCH_ARGS } from "../test/node/helpers/browser-launch";

const root = path.join(import.meta.dirname, "..");
const OUT = path.join(root, "docs/console");
const DOC = path.join(root, "docs/console.md");
const TENANT_ROUTE = "/app/t/:tenantId";
const OWNER = { email: "dana@harbour-dental.test", password: "a long enough password" };
/** the served Worker's first admin, a platform admin (bench/lib/bootstrap.mjs): the agency's and platform's pages */
const PLATFORM_ADMIN = { email: "bench@example.test", password: "bench-password-1" };

/** docs/console/<name>.png: the route after the tenant (or after /app), "-item" for each id ("inbox-item"). */
const shotName = (route: string) =>
  (route.startsWith(TENANT_ROUTE) ? route.slice(TENANT_ROUTE.length) || "/home" : route.replace(/^\/app(?=\/)/, ""))
    .split("/")
    .filter(Boolean)
    .map((s) => (s.startsWith(":") ? "item" : s))
    .join("-");

/** The console's GET routes in their registration order: pages without an id, and patterns with one. */
function consolePages() {
  const gets = consoleRoutes.routes
    .filter((r) => r.method === "GET" && r.path.startsWith("/app") && !r.path.startsWith("/app/assets"))
    .map((r) => r.path);
  const ids = (p: string) => p.split("/").filter((s) => s.startsWith(":") && s !== ":tenantId").length;
  return { plain: [...new Set(gets.filter((p) => ids(p) === 0))], withIds: [...new Set(gets.filter(ids))] };
}

const { mf, url } = await startServer({});
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_LAUNCH_ARGS });
try {
  // the platform admin makes the tenant and its people; the tenant's own admin seeds the rest
  const platform = await bootstrap(url, { tenantName: "Harbour Dental", tenantSlug: "harbour-dental" });
  /** the few fields this script reads of REST's answers */
  type Answer = { id: string; token: string; data: unknown[] };
  const call = async (headers: Record<string, string>, p: string, body?: unknown, method = "POST"): Promise<Answer> => {
    const res = await fetch(`${url}${p}`, {
      method: body === undefined ? "GET" : method,
      headers: { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Answer>;
  };
  const tenantId = platform.tenantId;
  for (const [email, name, role] of [
    [OWNER.email, "Dana Reyes", "tenant_admin"],
    ["mona@harbour-dental.test", "Mona Patel", "manager"],
  ])
    await call(platform.headers, `/agency/tenants/${tenantId}/users`, {
      email,
      name,
      role,
      password: OWNER.password,
    });
  // an agency of the platform's (the seed's tenant is in the house agency, which has no white-label page): the
  // agency page links its White label page, photographed through that link
  const agency = await call(platform.headers, "/admin/agencies", { name: "Coastline Marketing", slug: "coastline" });
  await call(
    platform.headers,
    `/agency/agencies/${agency.id}/branding`,
    { name: "Coastline Marketing", primaryColor: "#0b5cad", supportEmail: "help@coastline.test" },
    "PUT",
  );
  const { token } = await call({}, "/auth/login", OWNER);
  const owner = { authorization: `Bearer ${token}`, "x-tenant-id": tenantId };
  const api = (p: string, body?: unknown, method?: string) => call(owner, p, body, method);

  const quay = await api("/v1/locations", { name: "Harbour Dental Quay", city: "Portsmouth" });
  await api("/v1/locations", { name: "Harbour Dental Old Town", city: "Portsmouth" });
  // the newest first in the lists, so the detail pages (the first link to one) show the review with a reply waiting
  const reviews = [
    {
      siteType: "yelp",
      rating: 5,
      text: "Lovely team, and the hygienist explained everything.",
      authorName: "Priya S.",
    },
    { siteType: "google", rating: 4, text: "Good care; parking is hard to find.", authorName: "Ana L." },
    { siteType: "google", rating: 2, text: "Waited forty minutes past my appointment time.", authorName: "Tom R." },
  ];
  let late = { id: "" };
  for (const r of reviews) late = await api("/v1/reviews/ingest", { locationId: quay.id, ...r });
  const reply = await api(`/v1/reviews/${late.id}/responses`, {
    text: "Tom, we are sorry for the wait. We have added a second receptionist in the mornings.",
  });
  await api(`/v1/responses/${reply.id}/submit`, {});
  await api("/v1/users/invite", { email: "sam@harbour-dental.test", role: "tenant_user" });
  await api("/v1/contacts", { email: "jane.cooper@example.com", firstName: "Jane", lastName: "Cooper" });
  await api("/v1/api-keys", { name: "Front-desk tablet" });
  // the inbox items are made by the event consumer: the inbox page is photographed with all of them
  for (let i = 0; (await api(`/v1/inbox?limit=10`)).data.length < reviews.length; i++) {
    if (i > 100) throw new Error("the reviews' inbox items never appeared");
    await new Promise((r) => setTimeout(r, 100));
  }

  mkdirSync(OUT, { recursive: true });
  let context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  let page = await context.newPage();
  /** name -> [route, the page's title] of each PNG saved, in order */
  const saved = new Map<string, [string, string]>();
  const shoot = async (on: Page, name: string, route: string, also = "") => {
    await on.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: false });
    saved.set(name, [route, `${(await on.title()).split(" · ")[0]}${also}`]);
    process.stdout.write(`docs/console/${name}.png\n`);
  };
  await page.goto(`${url}/`);
  await shoot(page, "sign-in", "/");
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${url}/app/t/${tenantId}`);

  const t = `/app/t/${tenantId}`;
  const address = (route: string) => route.replace(TENANT_ROUTE, t);
  const { plain, withIds } = consolePages();
  const plainAddresses = new Set(plain.map(address));
  /** every same-origin link seen on the pages photographed, in the order seen */
  const links: string[] = [];
  /** a page, if the address answers the signed-in admin with one (not a redirect, a download or a fragment) */
  const photograph = async (name: string, route: string, addr: string) => {
    const head = await context.request.get(`${url}${addr}`, { maxRedirects: 0 });
    const html = (head.headers()["content-type"] ?? "").startsWith("text/html");
    if (head.status() !== 200 || !html || !(await head.text()).includes("<main")) return;
    await page.goto(`${url}${addr}`);
    await shoot(page, name, route);
    for (const href of await page
      .locator("main a[href^='/']")
      .evaluateAll((as) => as.map((a) => a.getAttribute("href"))))
      if (href && !links.includes(href)) links.push(href);
  };
  /** every page without an id the signed-in person reaches, then those with one through the links seen */
  const photographAll = async () => {
    for (const route of plain)
      if (!saved.has(shotName(route))) await photograph(shotName(route), route, address(route));
    // a page with an id: the first link to it on the pages before (a detail page may lead to another: again)
    for (let round = 0; round < 3; round++) {
      const before = saved.size;
      for (const route of withIds) {
        const name = shotName(route);
        if (saved.has(name)) continue;
        const pattern = new RegExp(`^${address(route).replace(/:[A-Za-z]+/g, "[^/?#]+")}(\\?.*)?$`);
        const link = links.find((l) => pattern.test(l) && !plainAddresses.has(l.split("?")[0]!));
        if (link) await photograph(name, route, link);
      }
      if (saved.size === before) break;
    }
  };
  await photographAll();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${url}${t}`);
  await shoot(page, "home-375", TENANT_ROUTE, " at 375 px");

  // the pages a tenant admin does not reach (the agency's, the platform's), as the platform admin
  await context.close();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await page.goto(`${url}/`);
  await page.getByLabel("Email").fill(PLATFORM_ADMIN.email);
  await page.getByLabel("Password").fill(PLATFORM_ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/app\//);
  await photographAll();

  // the PNGs of pages no longer photographed (renamed, gone) go
  for (const f of readdirSync(OUT)) if (f.endsWith(".png") && !saved.has(f.slice(0, -4))) rmSync(path.join(OUT, f));
  // docs/console.md's grid, three abreast, each with its route
  const cells = [...saved].map(
    ([name, [route, title]]) =>
      `![${title}](console/${name}.png)<br>\`${route.replace(TENANT_ROUTE, "/app/t/{tenant}").replace(/:([A-Za-z]+)/g, "{$1}")}\``,
  );
  const rows = ["| | | |", "|---|---|---|"];
  for (let i = 0; i < cells.length; i += 3)
    rows.push(`| ${[...cells.slice(i, i + 3), "", ""].slice(0, 3).join(" | ")} |`);
  const doc = readFileSync(DOC, "utf8");
  const start = "<!-- screenshots:start (npm run docs:screenshots writes this grid) -->";
  const end = "<!-- screenshots:end -->";
  if (!doc.includes(start) || !doc.includes(end)) throw new Error(`docs/console.md has no ${start} ... ${end}`);
  writeFileSync(DOC, `${doc.split(start)[0]}${start}\n${rows.join("\n")}\n${end}${doc.split(end)[1]}`);
  process.stdout.write(`docs/console.md: ${saved.size} screenshots\n`);
} finally {
  await browser.close();
  await mf.dispose();
}

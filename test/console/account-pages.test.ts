// The console's pages outside a tenant over HTTP (#46 items 10-12): the agency's page (/app/agency, REST /agency's
// check), the platform admin's pages (/app/platform, REST /admin's) and the person's connected apps. The page x
// person matrix: the platform admin, agency A's admin, agency B's admin, a tenant admin and a viewer of tenant A;
// each page answers 200 to those its REST twin admits and REST's 403 to the rest, as a page that says who it is
// for; the values shown are each person's own (agency A's admin never sees agency B's business); another id is a
// 404 as over REST. A new page or form here joins PAGES or FORMS, or the enumeration check at the end fails.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { deadLetters } from "../../src/db/schema";
import { controlDb } from "../../src/db/shards";
import { newId } from "../../src/lib/ids";
import { consoleRoutes } from "../../src/modules/console/routes";
import { emailIdsTo, nextEmailTo, tokenIn } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { ingest, newLocation } from "../reviews/helpers";
import { ConsoleBrowser, textOf } from "./helpers";

type Actor = "platformAdmin" | "agencyAdmin" | "otherAgencyAdmin" | "tenantAdmin" | "viewer";
const ACTORS: readonly Actor[] = ["platformAdmin", "agencyAdmin", "otherAgencyAdmin", "tenantAdmin", "viewer"];
/** REST /agency's requireAgencyScope: an agency's admin, or the platform admin */
const AGENCY_ADMINS: readonly Actor[] = ["platformAdmin", "agencyAdmin", "otherAgencyAdmin"];
/** REST /admin's requirePlatformAdmin */
const PLATFORM: readonly Actor[] = ["platformAdmin"];

let w: World;
const browsers = new Map<Actor, ConsoleBrowser>();
const as = (who: Actor) => browsers.get(who)!;
/** dead letters to replay, one per post */
const dead: string[] = [];
let businesses = 0;

/** a dead letter of the clicks queue (an empty batch of clicks: harmless when it goes back) */
async function deadLetter(queue = "clicks", body: unknown = { clicks: [] }) {
  const id = newId();
  await controlDb(env)
    .insert(deadLetters)
    .values({ id, queue, messageId: `msg-${id}`, body, attempts: 5, createdAt: new Date().toISOString() });
  return id;
}

/** Every page outside a tenant: its route, an address, and who reads it (REST's check of its twin). */
const PAGES: [pattern: string, path: () => string, readers: readonly Actor[]][] = [
  ["/app/agency", () => "/app/agency", AGENCY_ADMINS],
  ["/app/platform", () => "/app/platform", PLATFORM],
  ["/app/platform/tenants", () => "/app/platform/tenants", PLATFORM],
  ["/app/platform/dead-letters", () => "/app/platform/dead-letters", PLATFORM],
  ["/app/connected-apps", () => "/app/connected-apps", ACTORS],
];

/** Every form outside a tenant, the fields a browser sends, who may use it, and what the page then says. */
const FORMS: [
  pattern: string,
  path: () => string,
  fields: () => Record<string, string>,
  allowed: readonly Actor[],
  says: RegExp,
][] = [
  [
    "/app/agency/tenants",
    () => "/app/agency/tenants",
    () => {
      const n = ++businesses;
      return { name: `Matrix Business ${n}`, plan: "starter", ownerEmail: `matrix.owner.${n}@example.test` };
    },
    AGENCY_ADMINS,
    /Matrix Business \d+ is added\. An invite is on its way to matrix\.owner\.\d+@example\.test\./,
  ],
  [
    "/app/platform/dead-letters/:deadLetterId/replay",
    () => `/app/platform/dead-letters/${dead.shift() ?? "none-left"}/replay`,
    () => ({}),
    PLATFORM,
    /The message msg-\w+ is back on the clicks queue\./,
  ],
];

beforeAll(async () => {
  w = await createWorld({ shardA: 0, shardB: 1 });
  // tenant A: a location, a contact and a two-star review, its rollups rebuilt so GET /agency/usage reads them
  const loc = await newLocation(w);
  expect((await w.as("tenantAdmin").post("/v1/contacts", { email: "usage@example.test" })).status).toBe(201);
  await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 2, text: "Slow" });
  const today = new Date().toISOString().slice(0, 10);
  expect((await w.as("tenantAdmin").post("/v1/analytics/rebuild", { dateFrom: today, dateTo: today })).status).toBe(
    200,
  );
  // the refused (4) take one each too, then the platform admin
  for (let i = 0; i < 5; i++) dead.push(await deadLetter());
  for (const who of ACTORS) {
    const b = new ConsoleBrowser();
    await b.seededSession(w.users[who].id);
    browsers.set(who, b);
  }
}, 60_000);

describe("every page outside a tenant, for every person", () => {
  for (const [pattern, path, readers] of PAGES) {
    it(`${pattern}: 200 for those REST admits, REST's 403 as a page for the rest`, async () => {
      for (const who of ACTORS) {
        const page = await as(who).get(path());
        if (readers.includes(who)) {
          expect(page.status, `${who} ${pattern}`).toBe(200);
          continue;
        }
        expect(page.status, `${who} ${pattern}`).toBe(403);
        expect(textOf(page.text), `${who} ${pattern}`).toMatch(
          /These pages are for the (admins of an agency|platform's admins)/,
        );
        expect(page.text).not.toContain(w.tenantA.name);
        expect(page.text).not.toContain(w.tenantB.name);
      }
    });
  }

  it("signed out, every page goes to the sign-in page and back", async () => {
    for (const [pattern, path] of PAGES) {
      const page = await new ConsoleBrowser().get(path());
      expect(page.status, pattern).toBe(303);
      expect(page.location, pattern).toBe(`/?next=${encodeURIComponent(path())}`);
    }
  });

  it("the header links the agency's and the platform's pages to those who open them, and only to them", async () => {
    for (const who of ACTORS) {
      const page = (await as(who).get("/app/tenants")).text;
      expect(page.includes('href="/app/agency"'), who).toBe(AGENCY_ADMINS.includes(who));
      expect(page.includes('href="/app/platform"'), who).toBe(PLATFORM.includes(who));
    }
  });
});

describe("every form outside a tenant, for every person", () => {
  for (const [pattern, path, fields, allowed, says] of FORMS) {
    it(`${pattern}: REST's 403 for the rest, done for those it admits`, async () => {
      for (const who of ACTORS.filter((x) => !allowed.includes(x))) {
        const res = await as(who).post(path(), fields());
        expect(res.status, `${who} ${pattern}`).toBe(403);
      }
      for (const who of allowed) {
        const res = await as(who).post(path(), fields());
        expect(res.status, `${who} ${pattern}: ${textOf(res.text).slice(0, 200)}`).toBe(303);
        const landed = await as(who).follow(res);
        expect(landed.status, `${who} ${pattern}`).toBe(200);
        expect(textOf(landed.text), `${who} ${pattern}`).toMatch(says);
      }
    });
  }

  it("a form post without the session's CSRF token is refused", async () => {
    const res = await as("agencyAdmin").post("/app/agency/tenants", { name: "No token" }, { csrf: "" });
    expect(res.status).toBe(403);
    expect(textOf(res.text)).toContain("nothing was changed");
  });
});

describe("the agency's page", () => {
  it("shows each agency its own businesses with their health and usage, and links their homes", async () => {
    const mine = await as("agencyAdmin").get("/app/agency");
    const text = textOf(mine.text);
    expect(text).toContain(w.tenantA.name);
    expect(text).not.toContain(w.tenantB.name);
    expect(mine.text).toContain(`href="/app/t/${w.tenantA.id}"`);
    // tenant A's row: two stars, no reply yet, none past SLA, 1 location, 1 contact, no request, 1 review this month
    const row = new RegExp(
      `${w.tenantA.name} \\w+ ★★☆☆☆ 2 of 5 stars 0% 0 1 1 0 1 this month, 1 in all`.replace(/\s+/g, "\\s+"),
    );
    expect(text).toMatch(row);
    const theirs = textOf((await as("otherAgencyAdmin").get("/app/agency")).text);
    expect(theirs).toContain(w.tenantB.name);
    expect(theirs).not.toContain(w.tenantA.name);
    const platform = textOf((await as("platformAdmin").get("/app/agency")).text);
    expect(platform).toContain(w.tenantA.name);
    expect(platform).toContain(w.tenantB.name);
    // the agency admin opens the business's home with the same session
    const home = await as("agencyAdmin").get(`/app/t/${w.tenantA.id}`);
    expect(home.status).toBe(200);
    expect(textOf(home.text)).toContain("Admin (agency)");
  });

  it("adds a business and invites its owner: the mail's link opens the set-password page", async () => {
    const email = "harbour.owner@example.test";
    const seen = await emailIdsTo(email);
    const res = await as("agencyAdmin").post("/app/agency/tenants", {
      name: "Harbour Dental Care",
      slug: "",
      plan: "growth",
      ownerEmail: email,
      ownerName: "Hana Harbour",
    });
    expect(textOf((await as("agencyAdmin").follow(res)).text)).toContain(
      `Harbour Dental Care is added. An invite is on its way to ${email}.`,
    );
    // REST reads the business in agency A, with the owner as its admin, invited
    const listed = await request("GET", "/agency/tenants?limit=200", { token: w.users.agencyAdmin.token });
    const made = listed.body.data.find((t: { name: string }) => t.name === "Harbour Dental Care");
    expect(made).toMatchObject({ slug: "harbour-dental-care", plan: "growth", agencyId: w.agencyA.id });
    const users = await request("GET", `/agency/tenants/${made.id}/users`, { token: w.users.agencyAdmin.token });
    expect(users.body.data).toMatchObject([
      { email, name: "Hana Harbour", roles: ["tenant_admin"], invitePending: true },
    ]);
    // the other agency does not see it
    const other = await request("GET", `/agency/tenants/${made.id}`, { token: w.users.otherAgencyAdmin.token });
    expect(other.status).toBe(404);
    // the mail's link opens the console's set-password page
    const mail = await nextEmailTo(email, seen);
    const link = new URL(/https?:\/\/\S+\/setup-password\?token=[\w-]+/.exec(mail.text ?? "")![0]);
    expect(link.searchParams.get("token")).toBe(tokenIn(mail.text));
    const setup = await new ConsoleBrowser().get(link.pathname + link.search);
    expect(setup.status).toBe(200);
    expect(textOf(setup.text)).toContain("Welcome: set your password");
  });

  it("refusals are sentences: a slug taken, a bad email (nothing made)", async () => {
    const before = (await request("GET", "/agency/tenants?limit=200", { token: w.users.agencyAdmin.token })).body.total;
    const bad = await as("agencyAdmin").follow(
      await as("agencyAdmin").post("/app/agency/tenants", { name: "Bad Mail", ownerEmail: "not-an-email" }),
    );
    expect(textOf(bad.text)).toContain("Please check the form: email: Invalid email address.");
    const taken = await as("agencyAdmin").follow(
      await as("agencyAdmin").post("/app/agency/tenants", {
        name: "Again",
        slug: "harbour-dental-care",
        ownerEmail: "again@example.test",
      }),
    );
    expect(textOf(taken.text)).toContain("A tenant with slug 'harbour-dental-care' already exists");
    const after = (await request("GET", "/agency/tenants?limit=200", { token: w.users.agencyAdmin.token })).body.total;
    expect(after).toBe(before);
  });
});

describe("the platform's pages", () => {
  it("status: queues with their dead letters, shards with their tenants", async () => {
    const text = textOf((await as("platformAdmin").get("/app/platform")).text);
    for (const queue of ["sends", "events", "webhooks", "jobs", "clicks"]) expect(text).toContain(queue);
    expect(text).toMatch(/Shards Shard Tenants Size Full 0 \d+/);
    expect(text).toContain("No tenant is being moved between shards.");
  });

  it("tenants across shards: both worlds' tenants with their shard, searched by name, keyset pages", async () => {
    const all = textOf((await as("platformAdmin").get("/app/platform/tenants")).text);
    expect(all).toContain(w.tenantA.name);
    expect(all).toContain(w.tenantB.name);
    const found = await as("platformAdmin").get(`/app/platform/tenants?search=${encodeURIComponent(w.tenantB.name)}`);
    const text = textOf(found.text);
    expect(text).toContain("Tenants (1)");
    expect(text).toMatch(new RegExp(`${w.tenantB.name} .* starter active 1 1`));
    expect(text).not.toContain(w.tenantA.name);
    // REST answers the same search, with the shard
    const rest = await request("GET", `/admin/tenants?search=${encodeURIComponent(w.tenantB.name)}`, {
      token: w.users.platformAdmin.token,
    });
    expect(rest.body.data.map((t: { id: string; shard: number }) => [t.id, t.shard])).toEqual([[w.tenantB.id, 1]]);
  });

  it("dead letters: listed, replayed, and an unknown one is 404; one that cannot go back is a sentence (409)", async () => {
    const id = await deadLetter();
    const list = await as("platformAdmin").get("/app/platform/dead-letters?queue=clicks");
    expect(textOf(list.text)).toContain(`msg-${id}`);
    expect(list.text).toContain(`/app/platform/dead-letters/${id}/replay`);
    const res = await as("platformAdmin").post(`/app/platform/dead-letters/${id}/replay`);
    expect(textOf((await as("platformAdmin").follow(res)).text)).toContain(
      `The message msg-${id} is back on the clicks queue.`,
    );
    expect(await controlDb(env).select().from(deadLetters).where(eq(deadLetters.id, id)).get()).toBeUndefined();
    const again = await as("platformAdmin").post(`/app/platform/dead-letters/${id}/replay`);
    expect(again.status).toBe(404);
    const odd = await deadLetter("dead-letter", { something: 1 });
    const refused = await as("platformAdmin").follow(
      await as("platformAdmin").post(`/app/platform/dead-letters/${odd}/replay`),
    );
    expect(textOf(refused.text)).toContain("Messages of the dead-letter queue cannot be replayed");
  });
});

it("PAGES and FORMS enumerate every console route outside a tenant but the person's own and the sign-in ones", () => {
  const own = ["/app", "/app/tenants", "/app/me", "/app/me/name", "/app/me/password", "/app/assets/:file"];
  const routes = consoleRoutes.routes
    .filter(
      (r) =>
        r.path.startsWith("/app/") &&
        !r.path.startsWith("/app/t/") &&
        (r.method === "GET" || r.method === "POST") &&
        !own.includes(r.path) &&
        !/^\/app\/(sign-|forgot-password)/.test(r.path),
    )
    .map((r) => `${r.method} ${r.path}`);
  const listed = [
    ...PAGES.map(([p]) => `GET ${p}`),
    ...FORMS.map(([p]) => `POST ${p}`),
    // a form of the connected-apps page, checked with real grants in test/oauth/connected-apps.test.ts
    "POST /app/connected-apps/:grantId/revoke",
    // the agency's white label, checked per agency (its admin, another agency's 404, a tenant admin's 403) in
    // test/console/white-label-pages.test.ts
    ...["", "/logo", "/reset", "/hostnames", "/hostnames/:hostnameId/refresh", "/hostnames/:hostnameId/delete"].map(
      (s) => `POST /app/agency/:agencyId/white-label${s}`,
    ),
    "GET /app/agency/:agencyId/white-label",
  ];
  expect(new Set(routes)).toEqual(new Set(listed));
});

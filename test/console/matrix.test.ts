// The page × role matrix (#45, docs/console.md): every page of a tenant, for every kind of person, answers as
// the role allows; a person of another tenant or agency gets the same 404 on every page and every form and
// never reads tenant A's data. The surface is enumerated from the console's own routes, so a new tenant page
// or form that is not listed here fails the first test.
import { beforeAll, describe, expect, it } from "vitest";
import { consoleRoutes } from "../../src/modules/console/routes";
import { ACTOR_NAMES, createWorld, type World } from "../helpers/seed";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
const ids = { item: "", review: "", reply: "" };

beforeAll(async () => {
  w = await createWorld();
  ids.item = "matrix-no-such-item";
  ids.review = "matrix-no-such-review";
  ids.reply = "matrix-no-such-reply";
});

/** Every GET page of a tenant, with the fixture each needs. */
const PAGES: Record<string, () => string> = {
  "/app/t/:tenantId": () => "",
  "/app/t/:tenantId/inbox": () => "/inbox",
  "/app/t/:tenantId/inbox/fresh": () => "/inbox/fresh?after=2020-01-01T00:00:00.000Z",
  "/app/t/:tenantId/approvals": () => "/approvals",
  "/app/t/:tenantId/reviews": () => "/reviews",
};
/** Pages of one record: a made-up id is a 404 for everyone (the record's own fence is REST's). */
const RECORD_PAGES: Record<string, () => string> = {
  "/app/t/:tenantId/inbox/:itemId": () => `/inbox/${ids.item}`,
  "/app/t/:tenantId/reviews/:reviewId": () => `/reviews/${ids.review}`,
};
const FORMS: Record<string, () => string> = {
  "/app/t/:tenantId/inbox/:itemId/assign": () => `/inbox/${ids.item}/assign`,
  "/app/t/:tenantId/inbox/:itemId/tags": () => `/inbox/${ids.item}/tags`,
  "/app/t/:tenantId/inbox/:itemId/status": () => `/inbox/${ids.item}/status`,
  "/app/t/:tenantId/inbox/:itemId/note": () => `/inbox/${ids.item}/note`,
  "/app/t/:tenantId/reviews/:reviewId/replies": () => `/reviews/${ids.review}/replies`,
  "/app/t/:tenantId/replies/:replyId/edit": () => `/replies/${ids.reply}/edit`,
  "/app/t/:tenantId/replies/:replyId/submit": () => `/replies/${ids.reply}/submit`,
  "/app/t/:tenantId/replies/:replyId/approve": () => `/replies/${ids.reply}/approve`,
  "/app/t/:tenantId/replies/:replyId/reject": () => `/replies/${ids.reply}/reject`,
  "/app/t/:tenantId/replies/:replyId/publish": () => `/replies/${ids.reply}/publish`,
};

/** Who reaches tenant A (its roles, its agency's admin, the platform admin) and who does not. */
const INSIDE = ACTOR_NAMES.filter((a) => a !== "otherAgencyAdmin");
const OUTSIDE = ["otherAgencyAdmin", "tenantBAdmin"] as const;

const browsers = new Map<string, ConsoleBrowser>();
async function as(who: (typeof ACTOR_NAMES)[number] | "tenantBAdmin") {
  let b = browsers.get(who);
  if (!b) {
    b = new ConsoleBrowser();
    const res = await b.signIn(w.users[who].email);
    expect(res.status, who).toBe(303);
    browsers.set(who, b);
  }
  return b;
}
const inA = (rest: string) => `/app/t/${w.tenantA.id}${rest}`;

describe("the console's page × role matrix", () => {
  it("lists every tenant page and form of the console", () => {
    const tenantRoutes = consoleRoutes.routes
      .filter((r) => r.path.startsWith("/app/t/:tenantId") && !r.path.endsWith("/*") && r.method !== "ALL")
      .map((r) => `${r.method} ${r.path}`);
    const listed = [
      ...Object.keys({ ...PAGES, ...RECORD_PAGES }).map((p) => `GET ${p}`),
      ...Object.keys(FORMS).map((p) => `POST ${p}`),
    ];
    expect([...new Set(tenantRoutes)].sort()).toEqual(listed.sort());
  });

  for (const who of INSIDE)
    it(`${who}: every page of tenant A opens, naming the tenant`, async () => {
      const b = await as(who);
      for (const [route, path] of Object.entries(PAGES)) {
        const page = await b.get(inA(path()));
        expect(page.status, `${who} ${route}`).toBe(200);
        if (!route.endsWith("/fresh")) expect(textOf(page.text), route).toContain(w.tenantA.name);
      }
      for (const [route, path] of Object.entries(RECORD_PAGES))
        expect((await b.get(inA(path()))).status, `${who} ${route}`).toBe(404);
    });

  for (const who of OUTSIDE)
    it(`${who}: every page and form of tenant A is a 404 that shows none of its data`, async () => {
      const b = await as(who);
      for (const [route, path] of Object.entries({ ...PAGES, ...RECORD_PAGES })) {
        const page = await b.get(inA(path()));
        expect(page.status, `${who} GET ${route}`).toBe(404);
        expect(page.text).not.toContain(w.tenantA.name);
      }
      await b.get("/app/me");
      for (const [route, path] of Object.entries(FORMS)) {
        const res = await b.post(inA(path()), { text: "x", reason: "x", userId: "", tags: "x", status: "closed" });
        expect(res.status, `${who} POST ${route}`).toBe(404);
        expect(res.text).not.toContain(w.tenantA.name);
      }
    });

  it("the tenant switcher shows each person only the tenants they reach", async () => {
    const outside = textOf((await (await as("tenantBAdmin")).get("/app/tenants")).text);
    expect(outside).toContain(w.tenantB.name);
    expect(outside).not.toContain(w.tenantA.name);
    const agency = textOf((await (await as("agencyAdmin")).get("/app/tenants")).text);
    expect(agency).toContain(w.tenantA.name);
    expect(agency).not.toContain(w.tenantB.name);
  });
});

import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, competitors } from "../../src/db/schema";
import { systemContext } from "../../src/lib/system-context";
import { refreshCompetitor, refreshDueCompetitors } from "../../src/modules/competitors/refresh";
import { listCompetitorsForSkill } from "../../src/modules/competitors/service";
import { newLocation } from "../analytics/helpers";
import { createWorld, db, type World } from "../helpers/seed";
import { jsonResponse, standIn } from "../reviews/helpers";

let w: World;
let loc: { id: string };
let rivalId: string;

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
});

const yelp = () =>
  standIn((call) => {
    if (call.url.pathname === "/v3/businesses/rival-burgers")
      return jsonResponse({ id: "rival-burgers", name: "Rival Burgers", rating: 4.5, review_count: 321 });
    return jsonResponse(
      { error: { code: "BUSINESS_NOT_FOUND", description: "The requested business could not be found." } },
      404,
    );
  });

describe("competitors CRUD", () => {
  it("creates, reads, lists, updates and deletes, with audit rows", async () => {
    const res = await w.as("manager").post("/v1/competitors", {
      locationId: loc.id,
      name: "Rival Burgers",
      yelpBusinessId: "rival-burgers",
      googlePlaceId: "ChIJ-rival",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      locationId: loc.id,
      name: "Rival Burgers",
      yelpBusinessId: "rival-burgers",
      googlePlaceId: "ChIJ-rival",
      averageRating: null,
      reviewCount: null,
      bySite: {},
      lastRefreshStatus: null,
    });
    rivalId = res.body.id;
    const other = await w.as("manager").post("/v1/competitors", { locationId: loc.id, name: "Corner Diner" });
    expect((await w.as("viewer").get(`/v1/competitors/${rivalId}`)).body.name).toBe("Rival Burgers");
    const list = await w.as("viewer").get(`/v1/competitors?locationId=${loc.id}`);
    expect(list.body.data.map((c: any) => c.name)).toEqual(["Corner Diner", "Rival Burgers"]);
    expect(list.body.total).toBe(2);
    const patched = await w
      .as("manager")
      .patch(`/v1/competitors/${other.body.id}`, { name: "Corner Diner & Grill", websiteUrl: "https://diner.example" });
    expect(patched.body).toMatchObject({ name: "Corner Diner & Grill", websiteUrl: "https://diner.example" });
    expect((await w.as("manager").delete(`/v1/competitors/${other.body.id}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/competitors/${other.body.id}`)).status).toBe(404);
    const audit = await db()
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.resourceId, other.body.id));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "competitor.created",
      "competitor.deleted",
      "competitor.updated",
    ]);
  });

  it("validates, forbids viewers and isolates tenants", async () => {
    const bad = await w.as("manager").post("/v1/competitors", { locationId: loc.id, name: "", websiteUrl: "ftp://x" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: any) => i.path).sort()).toEqual(["name", "websiteUrl"]);
    expect((await w.as("viewer").post("/v1/competitors", { locationId: loc.id, name: "X" })).status).toBe(403);
    const foreignLoc = await newLocation(w, "tenantBAdmin");
    const cross = await w.as("manager").post("/v1/competitors", { locationId: foreignLoc.id, name: "X" });
    expect(cross.status).toBe(400);
    expect(cross.body.details.issues[0].path).toBe("locationId");
    const theirs = await w.as("tenantBAdmin").post("/v1/competitors", { locationId: foreignLoc.id, name: "B's rival" });
    expect(theirs.status).toBe(201);
    for (const [method, path] of [
      ["get", ""],
      ["patch", ""],
      ["delete", ""],
      ["post", "/refresh"],
    ] as const) {
      const res =
        method === "patch"
          ? await w.as("manager").patch(`/v1/competitors/${theirs.body.id}`, { name: "mine" })
          : await (w.as("manager") as any)[method](`/v1/competitors/${theirs.body.id}${path}`);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await w.as("viewer").get("/v1/competitors")).body.data.every((c: any) => c.tenantId === w.tenantA.id)).toBe(
      true,
    );
  });
});

describe("competitor refresh", () => {
  it("reports no_connection until the tenant has a Yelp integration", async () => {
    const res = await w.as("manager").post(`/v1/competitors/${rivalId}/refresh`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ lastRefreshStatus: "no_connection", averageRating: null });
    const none = await w.as("manager").post("/v1/competitors", { locationId: loc.id, name: "No ids" });
    expect((await w.as("manager").post(`/v1/competitors/${none.body.id}/refresh`)).body.lastRefreshStatus).toBe(
      "no_site_ids",
    );
  });

  it("reads rating and review count from Yelp Fusion GET /v3/businesses/{id} through the stand-in", async () => {
    const integration = await w.as("tenantAdmin").post("/v1/integrations", {
      connectorType: "yelp",
      name: "Yelp",
      locationId: loc.id,
      isSandbox: true,
      config: { businessId: "our-place", apiBaseUrl: "https://yelp.stand-in.test" },
      credentials: { apiKey: "y-key" },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const site = yelp();
    const ctx = await systemContext(env, w.tenantA.id, "test");
    const c = await refreshCompetitor(ctx, rivalId, { fetch: site.fetch });
    expect(site.calls).toHaveLength(1);
    expect(site.calls[0]!.method).toBe("GET");
    expect(site.calls[0]!.url.href).toBe("https://yelp.stand-in.test/v3/businesses/rival-burgers");
    expect(site.calls[0]!.headers.get("authorization")).toBe("Bearer y-key");
    expect(c).toMatchObject({
      averageRating: 4.5,
      reviewCount: 321,
      lastRefreshStatus: "ok",
      lastRefreshError: null,
      bySite: { yelp: { rating: 4.5, reviewCount: 321 } },
    });
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, rivalId), eq(auditEvents.action, "competitor.refreshed")));
    expect(audit.at(-1)!.nextState).toMatchObject({ averageRating: 4.5, reviewCount: 321, status: "ok" });
    expect(await listCompetitorsForSkill(ctx, { locationId: loc.id, limit: 10 })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "Rival Burgers", averageRating: 4.5, reviewCount: 321 }),
      ]),
    );
  });

  it("keeps the last figures and records the site's error when it refuses", async () => {
    await w.as("manager").patch(`/v1/competitors/${rivalId}`, { yelpBusinessId: "gone-away" });
    const c = await refreshCompetitor(await systemContext(env, w.tenantA.id, "test"), rivalId, { fetch: yelp().fetch });
    expect(c.lastRefreshStatus).toBe("error");
    expect(c.lastRefreshError).toContain("The requested business could not be found.");
    expect(c).toMatchObject({ averageRating: 4.5, reviewCount: 321 });
    await w.as("manager").patch(`/v1/competitors/${rivalId}`, { yelpBusinessId: "rival-burgers" });
  });

  it("the sweep refreshes due competitors only", async () => {
    await db()
      .update(competitors)
      .set({ lastRefreshedAt: "2020-01-01T00:00:00.000Z" })
      .where(eq(competitors.id, rivalId));
    const site = yelp();
    const n = await refreshDueCompetitors(env, db(), new Date(), { fetch: site.fetch });
    expect(n).toBeGreaterThanOrEqual(1);
    expect(site.calls.map((c) => c.url.pathname)).toEqual(["/v3/businesses/rival-burgers"]);
    expect(await refreshDueCompetitors(env, db(), new Date(), { fetch: site.fetch })).toBe(0);
  });
});

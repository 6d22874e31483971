import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, integrations } from "../../src/db/schema";
import { scheduleDueSyncs } from "../../src/modules/reviews/sync";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation } from "./helpers";

let w: World;
let locA: { id: string };
let locA2: { id: string };
let locB: { id: string };

/** Sandbox connections pointed at a closed local port: queued jobs fail fast instead of reaching real sites. */
const nowhere = { apiBaseUrl: "http://127.0.0.1:9" };

beforeAll(async () => {
  w = await createWorld();
  locA = await newLocation(w);
  locA2 = await newLocation(w);
  locB = await newLocation(w, "tenantBAdmin");
  const connect = async (as: "tenantAdmin" | "tenantBAdmin", body: Record<string, unknown>) =>
    expect((await w.as(as).post("/v1/integrations", { isSandbox: true, ...body })).status).toBe(201);
  await connect("tenantAdmin", {
    connectorType: "google",
    name: "G1",
    locationId: locA.id,
    config: { accountId: "1", locationId: "1", ...nowhere },
    credentials: { accessToken: "t" },
  });
  await connect("tenantAdmin", {
    connectorType: "yelp",
    name: "Y1",
    locationId: locA.id,
    config: { businessId: "b", ...nowhere },
    credentials: { apiKey: "k" },
  });
  await connect("tenantAdmin", {
    connectorType: "google",
    name: "G2",
    locationId: locA2.id,
    config: { accountId: "1", locationId: "2", ...nowhere },
    credentials: { accessToken: "t" },
  });
  await connect("tenantAdmin", {
    connectorType: "trustpilot",
    name: "off",
    isEnabled: false,
    locationId: locA2.id,
    config: { businessUnitId: "x", ...nowhere },
    credentials: { accessToken: "t" },
  });
  await connect("tenantBAdmin", {
    connectorType: "google",
    name: "B",
    locationId: locB.id,
    config: { accountId: "9", locationId: "9", ...nowhere },
    credentials: { accessToken: "t" },
  });
});

describe("POST /v1/reviews/sync", () => {
  it("queues one job per enabled review-site connection of the tenant", async () => {
    const res = await w.as("tenantUser").post("/v1/reviews/sync", {});
    expect(res.status).toBe(200);
    expect(res.body.queued).toBe(3);
    expect(res.body.bySite).toEqual({ google: 2, yelp: 1 });
    expect(res.body.jobs.map((j: { locationId: string }) => j.locationId).sort()).toEqual(
      [locA.id, locA.id, locA2.id].sort(),
    );
    const rows = await db().select().from(integrations).where(eq(integrations.tenantId, w.tenantA.id));
    expect(
      rows
        .filter((r) => r.syncRequestedAt)
        .map((r) => r.name)
        .sort(),
    ).toEqual(["G1", "G2", "Y1"]);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.action, "review.sync_requested"));
    expect(audit).toEqual([expect.objectContaining({ tenantId: w.tenantA.id, actorId: w.users.tenantUser.id })]);
  });

  it("narrows to one location; another tenant's location is a 400; a viewer cannot sync", async () => {
    const one = await w.as("tenantUser").post("/v1/reviews/sync", { locationId: locA2.id });
    expect(one.body).toMatchObject({ queued: 1, bySite: { google: 1 } });
    const foreign = await w.as("tenantUser").post("/v1/reviews/sync", { locationId: locB.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details.issues).toEqual([{ path: "locationId", message: "Unknown location" }]);
    expect((await w.as("viewer").post("/v1/reviews/sync", {})).status).toBe(403);
  });
});

describe("periodic sync sweep", () => {
  it("queues every enabled connection not queued within the interval, once", async () => {
    const now = new Date(Date.now() + 2 * 3600_000);
    await scheduleDueSyncs(env, db(), now);
    const rows = await db().select().from(integrations);
    const queuedAt = (name: string) => rows.find((r) => r.name === name)!.syncRequestedAt;
    expect(queuedAt("G1")).toBe(now.toISOString());
    expect(queuedAt("B")).toBe(now.toISOString());
    expect(queuedAt("off")).toBeNull();
    await scheduleDueSyncs(env, db(), new Date(now.getTime() + 5 * 60_000));
    const again = await db().select().from(integrations);
    expect(again.find((r) => r.name === "G1")!.syncRequestedAt).toBe(now.toISOString());
  });
});

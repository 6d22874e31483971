import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, locations } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

describe("/v1/regions", () => {
  let id = "";

  it("creates, reads and lists a region (manager)", async () => {
    const res = await w.as("manager").post("/v1/regions", { name: "Pacific NW", code: "PNW" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "Pacific NW", code: "PNW", tenantId: w.tenantA.id });
    id = res.body.id;
    expect((await w.as("viewer").get(`/v1/regions/${id}`)).body.name).toBe("Pacific NW");
    const list = await w.as("viewer").get("/v1/regions");
    expect(list.body).toMatchObject({ total: 1, data: [expect.objectContaining({ id })] });
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, "region.created")));
    expect(audit).toMatchObject({ tenantId: w.tenantA.id, actorId: w.users.manager.id });
  });

  it("validates, refuses duplicate names, and keeps viewers and tenant users out", async () => {
    const bad = await w.as("manager").post("/v1/regions", { name: "" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toBe("name");
    expect((await w.as("manager").post("/v1/regions", { name: "Pacific NW" })).status).toBe(409);
    expect((await w.as("viewer").post("/v1/regions", { name: "V" })).status).toBe(403);
    expect((await w.as("tenantUser").patch(`/v1/regions/${id}`, { name: "U" })).status).toBe(403);
  });

  it("hides the region from another tenant (404)", async () => {
    expect((await w.as("tenantBAdmin").get(`/v1/regions/${id}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").patch(`/v1/regions/${id}`, { name: "Mine" })).status).toBe(404);
    expect((await w.as("tenantBAdmin").delete(`/v1/regions/${id}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").get("/v1/regions")).body.total).toBe(0);
  });

  it("updates with an audit of before and after", async () => {
    const res = await w.as("manager").patch(`/v1/regions/${id}`, { name: "Cascadia", code: null });
    expect(res.body).toMatchObject({ name: "Cascadia", code: null });
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, "region.updated")));
    expect(audit).toMatchObject({
      previousState: expect.objectContaining({ name: "Pacific NW" }),
      nextState: expect.objectContaining({ name: "Cascadia" }),
    });
  });

  it("deletes, detaching its locations", async () => {
    const loc = await w.as("manager").post("/v1/locations", { name: "Seattle", regionId: id });
    expect(loc.body.regionId).toBe(id);
    expect((await w.as("manager").delete(`/v1/regions/${id}`)).status).toBe(204);
    expect((await w.as("manager").get(`/v1/regions/${id}`)).status).toBe(404);
    const row = await db().select().from(locations).where(eq(locations.id, loc.body.id)).get();
    expect(row!.regionId).toBeNull();
    expect(
      await db()
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, "region.deleted"))),
    ).toHaveLength(1);
  });
});

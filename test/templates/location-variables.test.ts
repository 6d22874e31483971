import { beforeAll, describe, expect, it } from "vitest";
import { auditOf } from "../campaigns/support";
import { createWorld, type World } from "../helpers/seed";

let w: World;
let locationId: string;
let otherTenantLocationId: string;

beforeAll(async () => {
  w = await createWorld();
  locationId = (await w.as("manager").post("/v1/locations", { name: "Downtown" })).body.id;
  otherTenantLocationId = (await w.as("tenantBAdmin").post("/v1/locations", { name: "B's place" })).body.id;
});

describe("location variables", () => {
  it("starts empty", async () => {
    const res = await w.as("viewer").get(`/v1/locations/${locationId}/variables`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ locationId, variables: {} });
  });

  it("replaces the whole set and audits the change", async () => {
    const first = await w.as("manager").put(`/v1/locations/${locationId}/variables`, {
      variables: { parkingInfo: "Behind the building", doctor_name: "Dr. Who" },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      locationId,
      variables: { doctor_name: "Dr. Who", parkingInfo: "Behind the building" },
    });

    const second = await w
      .as("manager")
      .put(`/v1/locations/${locationId}/variables`, { variables: { parkingInfo: "Street parking" } });
    expect(second.body.variables).toEqual({ parkingInfo: "Street parking" });
    expect((await w.as("viewer").get(`/v1/locations/${locationId}/variables`)).body.variables).toEqual({
      parkingInfo: "Street parking",
    });

    const audit = await auditOf(locationId, "location.variables_replaced");
    expect(audit).toHaveLength(2);
    expect(audit[1]).toMatchObject({
      actorId: w.users.manager.id,
      previousState: { doctor_name: "Dr. Who", parkingInfo: "Behind the building" },
      nextState: { parkingInfo: "Street parking" },
    });
  });

  it("refuses keys that are not token names or shadow a built-in token", async () => {
    for (const key of ["firstName", "FIRSTNAME", "unsubscribeLink", "1st", "has space", "dash-ed", "x".repeat(65)]) {
      const res = await w.as("manager").put(`/v1/locations/${locationId}/variables`, { variables: { [key]: "v" } });
      expect(res.status, key).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.details.issues[0].path).toMatch(/^variables/);
    }
  });

  it("refuses more than 50 variables and values over 1000 characters", async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]));
    expect((await w.as("manager").put(`/v1/locations/${locationId}/variables`, { variables: many })).status).toBe(400);
    expect(
      (await w.as("manager").put(`/v1/locations/${locationId}/variables`, { variables: { k: "x".repeat(1001) } }))
        .status,
    ).toBe(400);
  });

  it("needs manager to write", async () => {
    for (const who of ["viewer", "tenantUser"] as const) {
      const res = await w.as(who).put(`/v1/locations/${locationId}/variables`, { variables: {} });
      expect(res.status).toBe(403);
    }
  });

  it("treats another tenant's location as not found", async () => {
    expect((await w.as("manager").get(`/v1/locations/${otherTenantLocationId}/variables`)).status).toBe(404);
    const put = await w
      .as("manager")
      .put(`/v1/locations/${otherTenantLocationId}/variables`, { variables: { a: "b" } });
    expect(put.status).toBe(404);
    expect(put.body.code).toBe("NOT_FOUND");
  });
});

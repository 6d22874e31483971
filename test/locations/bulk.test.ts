import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, locations } from "../../src/db/schema";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
let regionId = "";
beforeAll(async () => {
  w = await createWorld();
  regionId = (await w.as("manager").post("/v1/regions", { name: "North East", code: "NE" })).body.id;
});

const upload = (who: keyof World["users"], csv: string, tenantId?: string) => {
  const form = new FormData();
  form.append("file", new File([csv], "locations.csv", { type: "text/csv" }));
  return request("POST", "/v1/locations/bulk", {
    token: w.users[who].token,
    tenantId: tenantId ?? (who === "tenantBAdmin" ? w.tenantB.id : w.tenantA.id),
    body: form,
  });
};

const rowsOf = (tenantId: string) => db().select().from(locations).where(eq(locations.tenantId, tenantId));

describe("POST /v1/locations/bulk", () => {
  it("imports new rows, resolves brand by slug and region by code, and reports bad rows", async () => {
    const csv = [
      "Name,Brand,Region,address_line1,City,State,Postal Code,Country,Timezone,Phone,Email,websiteUrl,googlePlaceId,latitude,longitude,externalId",
      "Downtown,default,NE,1 Main St,Boston,MA,02108,us,America/New_York,+16175550100,Down@Town.test,https://x.test/d,gp-1,42.35,-71.06,ext-1",
      'Uptown,,north east,"2 High St, Suite 5",Boston,MA,02109,,,,,,,,,ext-2',
      ",,,,,,,,,,,,,,,ext-3",
      "Bad email,,,,,,,,,,not-an-email,,,,,ext-4",
      "Unknown brand,nope,,,,,,,,,,,,,,ext-5",
      "Dup,,,,,,,,,,,,,,,ext-1",
      "No external id,,,,,,,,,,,,,,,",
    ].join("\n");
    const res = await upload("manager", csv);
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(3);
    expect(res.body.updated).toBe(0);
    expect(res.body.errors).toEqual([
      { row: 3, reason: expect.stringContaining("name") },
      { row: 4, reason: expect.stringContaining("email") },
      { row: 5, reason: "brand: unknown brand 'nope'" },
      { row: 6, reason: "externalId: duplicate of row 1" },
    ]);
    const rows = await rowsOf(w.tenantA.id);
    const down = rows.find((r) => r.externalId === "ext-1")!;
    expect(down).toMatchObject({
      name: "Downtown",
      brandId: w.tenantA.brandId,
      regionId,
      addressLine1: "1 Main St",
      city: "Boston",
      postalCode: "02108",
      country: "US",
      timezone: "America/New_York",
      email: "down@town.test",
      googlePlaceId: "gp-1",
      latitude: 42.35,
      longitude: -71.06,
      isActive: true,
    });
    const up = rows.find((r) => r.externalId === "ext-2")!;
    expect(up).toMatchObject({
      name: "Uptown",
      regionId,
      addressLine1: "2 High St, Suite 5",
      country: "US",
      timezone: "UTC",
      brandId: w.tenantA.brandId,
    });
    expect(rows.find((r) => r.name === "No external id")).toMatchObject({ externalId: null });
  });

  it("upserts on externalId: present columns are written, absent ones kept", async () => {
    const csv = "externalId,name,city,region\next-1,Downtown Renamed,Cambridge,\next-9,Brand new,Quincy,NE\n";
    const res = await upload("manager", csv);
    expect(res.body).toEqual({ imported: 1, updated: 1, errors: [] });
    const rows = await rowsOf(w.tenantA.id);
    expect(rows.filter((r) => r.externalId === "ext-1")).toHaveLength(1);
    expect(rows.find((r) => r.externalId === "ext-1")).toMatchObject({
      name: "Downtown Renamed",
      city: "Cambridge",
      regionId: null,
      addressLine1: "1 Main St",
      timezone: "America/New_York",
      googlePlaceId: "gp-1",
    });
    expect(rows.find((r) => r.externalId === "ext-9")).toMatchObject({ name: "Brand new", city: "Quincy", regionId });
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.action, "location.bulk_imported"));
    expect(audit.at(-1)).toMatchObject({ tenantId: w.tenantA.id, actorId: w.users.manager.id });
    expect(audit.at(-1)!.nextState).toMatchObject({ imported: 1, updated: 1, failedRows: 0 });
  });

  it("accepts a text/csv body", async () => {
    const res = await request("POST", "/v1/locations/bulk", {
      token: w.users.manager.token,
      tenantId: w.tenantA.id,
      body: "name,externalId\nPlain body,ext-plain\n",
      headers: { "content-type": "text/csv" },
    });
    expect(res.body).toEqual({ imported: 1, updated: 0, errors: [] });
  });

  it("never touches another tenant's location with the same externalId", async () => {
    const res = await upload("tenantBAdmin", "name,externalId\nB's Downtown,ext-1\n");
    expect(res.body).toEqual({ imported: 1, updated: 0, errors: [] });
    expect((await rowsOf(w.tenantA.id)).find((r) => r.externalId === "ext-1")!.name).toBe("Downtown Renamed");
    // a brand of tenant A is unknown in tenant B
    const cross = await upload("tenantBAdmin", `name,brand\nX,${w.tenantA.brandId}\n`);
    expect(cross.body.errors).toEqual([{ row: 1, reason: expect.stringContaining("unknown brand") }]);
  });

  it("refuses more than 5,000 rows with 413 and writes nothing", async () => {
    const csv = ["name", ...Array.from({ length: 5001 }, (_, i) => `Loc ${i}`)].join("\n");
    const before = (await rowsOf(w.tenantA.id)).length;
    const res = await upload("manager", csv);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await rowsOf(w.tenantA.id)).length).toBe(before);
  });

  it("imports 5,000 rows in one go", async () => {
    const csv = ["name,externalId,city", ...Array.from({ length: 5000 }, (_, i) => `Big ${i},big-${i},Town ${i}`)].join(
      "\n",
    );
    const res = await upload("manager", csv);
    expect(res.body).toEqual({ imported: 5000, updated: 0, errors: [] });
  });

  it("needs a name column, a file, and the manager role", async () => {
    const noName = await upload("manager", "city\nBoston\n");
    expect(noName.status).toBe(400);
    expect(noName.body.details.issues[0].path).toBe("file");
    const noFile = await request("POST", "/v1/locations/bulk", {
      token: w.users.manager.token,
      tenantId: w.tenantA.id,
      body: new FormData(),
    });
    expect(noFile.status).toBe(400);
    expect((await upload("tenantUser", "name\nX\n")).status).toBe(403);
    expect((await upload("viewer", "name\nX\n")).status).toBe(403);
  });
});

import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { getComplianceConfig } from "../../src/modules/compliance/service";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const DEFAULTS = {
  healthcareSafeMode: false,
  retentionDays: 730,
  requireDoubleOptIn: false,
  allowDataExport: true,
  allowDataDeletion: true,
  quietHoursStart: "21:00",
  quietHoursEnd: "08:00",
  frequencyCapDaily: 3,
  frequencyCapWeekly: 5,
  requireEmailConsent: true,
  requireSmsOptIn: true,
};

describe("/v1/compliance", () => {
  it("returns the defaults to any role before anything is saved", async () => {
    const res = await w.as("viewer").get("/v1/compliance");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULTS);
  });

  it("lets a tenant_admin change some fields, keeping the rest, and audits the change", async () => {
    const res = await w
      .as("tenantAdmin")
      .put("/v1/compliance", { retentionDays: 90, quietHoursStart: "20:30", frequencyCapWeekly: 500 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...DEFAULTS, retentionDays: 90, quietHoursStart: "20:30", frequencyCapWeekly: 500 });
    const again = await w.as("tenantAdmin").put("/v1/compliance", { healthcareSafeMode: true });
    expect(again.body).toMatchObject({ healthcareSafeMode: true, retentionDays: 90 });
    expect((await w.as("viewer").get("/v1/compliance")).body).toEqual(again.body);

    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "compliance.updated")));
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({
      actorId: w.users.tenantAdmin.id,
      previousState: DEFAULTS,
      nextState: { retentionDays: 90 },
    });
  });

  it("is what the sending policy reads, per tenant", async () => {
    const base = {
      db: db(),
      env,
      actor: { type: "system", name: "test" } as const,
      meta: { ip: null, userAgent: null, requestId: null },
      defer: () => {},
    };
    expect(await getComplianceConfig({ ...base, tenantId: w.tenantA.id })).toMatchObject({
      retentionDays: 90,
      healthcareSafeMode: true,
    });
    expect(await getComplianceConfig({ ...base, tenantId: w.tenantB.id })).toEqual(DEFAULTS);
    expect((await w.as("tenantBAdmin").get("/v1/compliance")).body).toEqual(DEFAULTS);
  });

  it.each([
    [{ retentionDays: 89 }, "retentionDays"],
    [{ retentionDays: 2191 }, "retentionDays"],
    [{ retentionDays: 100.5 }, "retentionDays"],
    [{ frequencyCapDaily: 101 }, "frequencyCapDaily"],
    [{ frequencyCapDaily: -1 }, "frequencyCapDaily"],
    [{ frequencyCapWeekly: 501 }, "frequencyCapWeekly"],
    [{ quietHoursStart: "24:00" }, "quietHoursStart"],
    [{ quietHoursEnd: "8:00" }, "quietHoursEnd"],
    [{ allowDataExport: "yes" }, "allowDataExport"],
  ])("rejects %j with 400", async (body, path) => {
    const res = await w.as("tenantAdmin").put("/v1/compliance", body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues[0].path).toBe(path);
  });

  it("rejects unknown fields", async () => {
    const res = await w.as("tenantAdmin").put("/v1/compliance", { retentionDay: 100 });
    expect(res.status).toBe(400);
  });

  it("keeps writes to tenant_admin (and platform/agency scope)", async () => {
    for (const who of ["manager", "tenantUser", "viewer"] as const) {
      expect((await w.as(who).put("/v1/compliance", { retentionDays: 100 })).status).toBe(403);
    }
    expect((await w.as("agencyAdmin").put("/v1/compliance", { retentionDays: 120 })).body.retentionDays).toBe(120);
    expect((await w.as("otherAgencyAdmin").put("/v1/compliance", { retentionDays: 130 })).status).toBe(403);
  });
});

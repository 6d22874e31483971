import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { csvCell, csvRow } from "../../src/modules/audit/csv";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
  await w.as("tenantAdmin").post("/v1/regions", { name: '=HYPERLINK("http://evil.test","x")', code: "+1" });
  await w.as("tenantAdmin").patch(`/v1/brands/${w.tenantA.brandId}`, { brandDescription: 'Says "hi", then\r\nleaves' });
  await w.as("tenantBAdmin").post("/v1/regions", { name: "Tenant B only" });
});

describe("CSV cells", () => {
  it("quotes per RFC 4180 and defuses formula starts", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+cmd")).toBe("'+cmd");
    expect(csvCell("-2")).toBe("'-2");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell("\rx")).toBe('"\'\rx"');
    expect(csvCell('=A1,"x"')).toBe('"\'=A1,""x"""');
    expect(csvCell(null)).toBe("");
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
    expect(csvRow(["a", 1, null])).toBe("a,1,\r\n");
  });
});

describe("GET /v1/audit-events", () => {
  it("lists this tenant's events newest first, with filters", async () => {
    const all = await w.as("tenantAdmin").get("/v1/audit-events");
    expect(all.status).toBe(200);
    expect(all.body.data.every((e: { tenantId: string }) => e.tenantId === w.tenantA.id)).toBe(true);
    expect(all.body.data.map((e: { action: string }) => e.action)).toEqual(["brand.updated", "region.created"]);
    const regions = await w.as("tenantAdmin").get("/v1/audit-events?resourceType=region");
    expect(regions.body.data).toHaveLength(1);
    expect(regions.body.data[0]).toMatchObject({
      action: "region.created",
      actorId: w.users.tenantAdmin.id,
      actorType: "user",
      previousState: null,
    });
    const byResource = await w
      .as("tenantAdmin")
      .get(`/v1/audit-events?resourceId=${w.tenantA.brandId}&actorId=${w.users.tenantAdmin.id}`);
    expect(byResource.body.data.map((e: { action: string }) => e.action)).toEqual(["brand.updated"]);
    const none = await w.as("tenantAdmin").get(`/v1/audit-events?to=${encodeURIComponent("2000-01-01T00:00:00Z")}`);
    expect(none.body).toMatchObject({ data: [], total: 0 });
  });

  it("is tenant_admin only", async () => {
    expect((await w.as("manager").get("/v1/audit-events")).status).toBe(403);
    expect((await w.as("manager").get("/v1/audit-events/export")).status).toBe(403);
  });
});

describe("GET /v1/audit-events/export", () => {
  it("streams a CSV with a header row, RFC 4180 quoting and injection-safe cells", async () => {
    const res = await fetchCsv("");
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /attachment; filename="audit-events-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    expect(
      res.text.startsWith(
        "id,occurredAt,tenantId,action,resourceType,resourceId,actorType,actorId,ipAddress,userAgent,previousState,nextState\r\n",
      ),
    ).toBe(true);
    const rows = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true }).data;
    expect(rows.map((r) => r.action)).toEqual(["brand.updated", "region.created"]);
    const region = JSON.parse(rows[1]!.nextState!);
    expect(region.name).toBe('=HYPERLINK("http://evil.test","x")');
    // a JSON cell starts with { so it needs no prefix; a formula would
    expect(rows.every((r) => Object.values(r).every((v) => !/^[=+\-@\t\r]/.test(v)))).toBe(true);
    expect(JSON.parse(rows[0]!.nextState!).brandDescription).toBe('Says "hi", then\r\nleaves');
    expect(res.text).not.toContain("Tenant B only");
  });

  it("exports across many keyset pages in order, honouring filters", async () => {
    const now = Date.now();
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      id: newId(),
      tenantId: w.tenantA.id,
      actorId: null,
      actorType: "system" as const,
      action: "bulk.synthetic",
      resourceType: "thing",
      resourceId: i % 2 ? "-odd" : "@even",
      previousState: null,
      nextState: null,
      metadata: null,
      ipAddress: null,
      userAgent: null,
      occurredAt: new Date(now - 3_600_000 - i * 1000).toISOString(),
    }));
    const d = db();
    const inserts = Array.from({ length: Math.ceil(rows.length / 7) }, (_, i) =>
      d.insert(auditEvents).values(rows.slice(i * 7, i * 7 + 7)),
    );
    await d.batch(inserts as [(typeof inserts)[number], ...typeof inserts]);
    const res = await fetchCsv("?action=bulk.synthetic");
    const parsed = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true }).data;
    expect(parsed).toHaveLength(1203);
    expect(parsed.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(parsed[0]!.resourceId).toBe("'@even");
    expect(parsed[1]!.resourceId).toBe("'-odd");
    const total = (await w.as("tenantAdmin").get("/v1/audit-events?action=bulk.synthetic&limit=1")).body.total;
    expect(total).toBe(1203);
  });
});

async function fetchCsv(query: string) {
  const res = await w.as("tenantAdmin").get(`/v1/audit-events/export${query}`);
  expect(res.status).toBe(200);
  return res;
}

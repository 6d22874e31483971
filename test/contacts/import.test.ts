import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, contactCounts, contacts } from "../../src/db/schema";
import { type ServiceContext, SYSTEM_META } from "../../src/lib/context";
import { chunkByParams } from "../../src/lib/sql";
import { nowIso } from "../../src/lib/time";
import type { ContactRow } from "../../src/modules/contacts/schemas";
import { upsertStatements } from "../../src/modules/contacts/upsert";
import { control, createWorld, db, type World } from "../helpers/seed";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const csv = (text: string, name = "contacts.csv") => {
  const form = new FormData();
  form.append("file", new File([text], name, { type: "text/csv" }));
  return form;
};
const upload = (text: string, as: Parameters<World["as"]>[0] = "tenantUser") =>
  w.as(as).post("/v1/contacts/import/csv", csv(text));
const byEmail = (email: string) =>
  db()
    .select()
    .from(contacts)
    .where(and(eq(contacts.tenantId, w.tenantA.id), eq(contacts.email, email)))
    .get();
const countA = async () => (await db().select().from(contacts).where(eq(contacts.tenantId, w.tenantA.id))).length;

describe("POST /v1/contacts/import/csv", () => {
  it("imports good rows, skips a row without email or phone, keeps quoted commas", async () => {
    const res = await upload(
      [
        "email,phone,firstName,lastName,locale,timezone",
        'ada@import.test,,Ada,"Lovelace, Countess",en-GB,Europe/London',
        ",,Nobody,Here,,",
        ',"+1 (212) 555-0101","Grace ""Amazing""",Hopper,,America/New_York',
        "bad-email,,X,Y,,",
        "tz@import.test,,T,Z,,Mars/Olympus",
      ].join("\n"),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      imported: 2,
      skipped: 3,
      errors: [
        { row: 2, reason: "email: email or phone is required" },
        { row: 4, reason: expect.stringMatching(/^email: /) },
        { row: 5, reason: expect.stringMatching(/^timezone: /) },
      ],
    });
    expect(await byEmail("ada@import.test")).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace, Countess",
      locale: "en-GB",
      timezone: "Europe/London",
    });
    const grace = await db().select().from(contacts).where(eq(contacts.phone, "+12125550101")).get();
    expect(grace).toMatchObject({ firstName: 'Grace "Amazing"', lastName: "Hopper", email: null });
  });

  it("accepts snake_case and any-case headers, a BOM and CRLF line ends, and ignores unknown columns", async () => {
    const res = await upload("\uFEFFEMAIL,First_Name,LAST_NAME,Shoe Size\r\nsnake@import.test,Sna,Ke,44\r\n\r\n");
    expect(res.body).toEqual({ imported: 1, skipped: 0, errors: [] });
    expect(await byEmail("snake@import.test")).toMatchObject({ firstName: "Sna", lastName: "Ke", externalIds: {} });
  });

  it("upserts: a row matching an existing email or phone updates that contact (same id), empty cells keep values", async () => {
    const existing = (
      await w.as("tenantUser").post("/v1/contacts", {
        email: "match@import.test",
        firstName: "Old",
        lastName: "Name",
        phone: "+1 212 555 0102",
      })
    ).body;
    const res = await upload("email,phone,first_name\nMATCH@import.test,,New\n,2125550102,Newer\n");
    expect(res.body).toEqual({ imported: 2, skipped: 0, errors: [] });
    const row = await byEmail("match@import.test");
    expect(row).toMatchObject({ id: existing.id, firstName: "Newer", lastName: "Name", phone: "+12125550102" });
  });

  it("merges repeated rows of one new contact and reports a row whose email and phone are two contacts", async () => {
    await w.as("tenantUser").post("/v1/contacts", { email: "one@import.test" });
    await w.as("tenantUser").post("/v1/contacts", { phone: "+1 212 555 0103" });
    const res = await upload(
      "email,phone,firstName\ntwice@import.test,,A\ntwice@import.test,+12125550104,B\none@import.test,+12125550103,C\n",
    );
    expect(res.body).toEqual({
      imported: 2,
      skipped: 1,
      errors: [{ row: 3, reason: "email and phone belong to different contacts" }],
    });
    expect(await byEmail("twice@import.test")).toMatchObject({ firstName: "B", phone: "+12125550104" });
  });

  it("audits the import with its counts and the contacts it touched", async () => {
    const res = await upload("email\naudit1@import.test\naudit2@import.test\n");
    expect(res.status).toBe(200);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "contact.imported")));
    const ids = [(await byEmail("audit1@import.test"))!.id, (await byEmail("audit2@import.test"))!.id];
    const last = audit.find((a) => (a.nextState as { created: string[] }).created.includes(ids[0]!))!;
    expect(last).toMatchObject({ actorType: "user", actorId: w.users.tenantUser.id, resourceType: "contact_import" });
    expect(last.nextState).toMatchObject({ rows: 2, imported: 2, skipped: 0, updated: [], fileName: "contacts.csv" });
    expect((last.nextState as { created: string[] }).created.sort()).toEqual(ids.sort());
  });

  it("answers 400 when the header has neither an email nor a phone column", async () => {
    const res = await upload("name,city\nAda,London\n");
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("file");
  });

  it("answers 400 without a file", async () => {
    const form = new FormData();
    form.append("other", "x");
    const res = await w.as("tenantUser").post("/v1/contacts/import/csv", form);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });

  it("does not let a viewer import", async () => {
    const res = await upload("email\nviewer@import.test\n", "viewer");
    expect(res.status).toBe(403);
    expect(await byEmail("viewer@import.test")).toBeUndefined();
  });

  it("refuses 5,001 rows with 413 and imports nothing", async () => {
    const before = await countA();
    const rows = Array.from({ length: 5001 }, (_, i) => `over${i}@bulk.test`);
    const res = await upload(["email", ...rows].join("\n"));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await countA()).toBe(before);
  }, 30_000);

  it("refuses a file over 10 MB with 413 and imports nothing", async () => {
    const before = await countA();
    const line = `big@bulk.test,,${"x".repeat(1000)}\n`;
    const res = await upload(`email,phone,firstName\n${line.repeat(Math.ceil((10 * 1024 * 1024) / line.length) + 1)}`);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await countA()).toBe(before);
  }, 30_000);

  it("imports 5,000 rows in one go and keeps the total in step", async () => {
    const before = await countA();
    const rows = Array.from(
      { length: 5000 },
      (_, i) => `bulk${i}@bulk.test,+1212556${String(i).padStart(4, "0")},First${i},Last${i},en-US,America/Chicago`,
    );
    const res = await upload(["email,phone,firstName,lastName,locale,timezone", ...rows].join("\n"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 5000, skipped: 0, errors: [] });
    expect(await countA()).toBe(before + 5000);
    const total = await db().select().from(contactCounts).where(eq(contactCounts.tenantId, w.tenantA.id)).get();
    expect(total!.total).toBe(before + 5000);
    expect((await w.as("viewer").get("/v1/contacts?limit=1")).body.total).toBe(before + 5000);
  }, 30_000);
});

describe("writing in chunks", () => {
  const ctx = (): ServiceContext => ({
    db: db(),
    control: control(),
    env,
    tenantId: w.tenantA.id,
    actor: { type: "system", name: "test" },
    meta: SYSTEM_META,
    defer: (p) => p,
  });
  const row = (i: number, email: string): ContactRow => ({
    id: `chunk-${i}-${Math.random().toString(36).slice(2)}`,
    tenantId: w.tenantA.id,
    email,
    phone: `+1303555${String(i).padStart(4, "0")}`,
    firstName: "F",
    lastName: "L",
    locale: "en-US",
    timezone: "UTC",
    isSuppressed: false,
    suppressedAt: null,
    suppressionReason: null,
    externalIds: { a: 1 },
    sourceMetadata: { b: 2 },
    nameKey: "f l",
    nameKeyReversed: "l f",
    lastActivityAt: nowIso(),
    anonymizedAt: null,
    createdAt: nowIso(),
    updatedAt: nowIso(),
  });

  it("keeps every statement within 100 bound parameters", () => {
    const rows = Array.from({ length: 40 }, (_, i) => row(i, `p${i}@chunk.test`));
    const statements = upsertStatements(ctx(), rows);
    expect(statements.length).toBeGreaterThan(1);
    for (const s of statements)
      expect((s as unknown as { toSQL(): { params: unknown[] } }).toSQL().params.length).toBeLessThanOrEqual(100);
    expect(
      chunkByParams(
        [
          { a: 1, b: undefined },
          { a: 2, b: 3 },
        ],
        2,
      ),
    ).toEqual([[{ a: 1, b: undefined }], [{ a: 2, b: 3 }]]);
  });

  it("writes nothing when a later chunk fails: the import is one atomic batch", async () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(100 + i, `atomic${i}@chunk.test`));
    rows.push(row(200, "atomic0@chunk.test")); // same email as the first row, in the last chunk
    await expect(db().batch(upsertStatements(ctx(), rows) as [never, ...never[]])).rejects.toThrow(/UNIQUE/);
    expect(await byEmail("atomic0@chunk.test")).toBeUndefined();
    expect(await byEmail("atomic29@chunk.test")).toBeUndefined();
  });
});

import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, contacts, domainEvents } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
let ann: { id: string };
let bContactId: string;

beforeAll(async () => {
  w = await createWorld();
  const b = await w.as("tenantBAdmin").post("/v1/contacts", { email: "b-only@example.test" });
  bContactId = b.body.id;
});

const auditFor = (resourceId: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.resourceId, resourceId), eq(auditEvents.tenantId, w.tenantA.id)));

describe("POST /v1/contacts (upsert)", () => {
  it("creates a contact with normalised email and E.164 phone", async () => {
    const res = await w.as("tenantUser").post("/v1/contacts", {
      email: "  Ann.Lee@Example.TEST ",
      phone: "(212) 555-0100",
      firstName: "Ann",
      lastName: "Lée",
      locale: "en-US",
      timezone: "America/New_York",
      externalIds: { crm: "c-1" },
      sourceMetadata: { form: "checkout" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenantId: w.tenantA.id,
      email: "ann.lee@example.test",
      phone: "+12125550100",
      firstName: "Ann",
      lastName: "Lée",
      locale: "en-US",
      timezone: "America/New_York",
      isSuppressed: false,
      suppressedAt: null,
      suppressionReason: null,
      externalIds: { crm: "c-1" },
      sourceMetadata: { form: "checkout" },
    });
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "id",
        "tenantId",
        "email",
        "phone",
        "firstName",
        "lastName",
        "locale",
        "timezone",
        "isSuppressed",
        "suppressedAt",
        "suppressionReason",
        "externalIds",
        "sourceMetadata",
        "createdAt",
        "updatedAt",
      ].sort(),
    );
    ann = res.body;
    const audit = await auditFor(ann.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "contact.created",
      resourceType: "contact",
      actorId: w.users.tenantUser.id,
    });
    // audit rows say what changed, never the personal values
    expect(JSON.stringify(audit[0])).not.toContain("ann.lee");
    expect(audit[0]!.metadata).toMatchObject({
      changedFields: expect.arrayContaining(["email", "phone", "firstName"]),
    });
  });

  it("matches on email (case-insensitive, trimmed) and returns the same id", async () => {
    const res = await w
      .as("tenantUser")
      .post("/v1/contacts", { email: "ANN.LEE@example.test", firstName: "Annie", externalIds: { pos: "p-9" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: ann.id,
      firstName: "Annie",
      lastName: "Lée",
      phone: "+12125550100",
      externalIds: { crm: "c-1", pos: "p-9" },
    });
  });

  it("matches on phone in another format and returns the same id", async () => {
    const res = await w.as("tenantUser").post("/v1/contacts", { phone: "+1 212-555-0100", lastName: "Lee" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: ann.id, email: "ann.lee@example.test", lastName: "Lee" });
    const rows = await db().select().from(contacts).where(eq(contacts.tenantId, w.tenantA.id));
    expect(rows.filter((r) => r.phone === "+12125550100")).toHaveLength(1);
    expect((await auditFor(ann.id)).map((a) => a.action)).toEqual([
      "contact.created",
      "contact.updated",
      "contact.updated",
    ]);
  });

  it("reads a national number in the region of the locale", async () => {
    const res = await w.as("tenantUser").post("/v1/contacts", { phone: "020 7946 0958", locale: "en-GB" });
    expect(res.body.phone).toBe("+442079460958");
  });

  it("answers 409 when the email and the phone belong to different contacts", async () => {
    const res = await w
      .as("tenantUser")
      .post("/v1/contacts", { email: "ann.lee@example.test", phone: "+44 20 7946 0958" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
  });

  it.each([
    [{ firstName: "No Address" }, "email"],
    [{ email: "not-an-email" }, "email"],
    [{ email: "x@example.test", phone: "12" }, "phone"],
    [{ email: "x@example.test", timezone: "Mars/Olympus" }, "timezone"],
    [{ email: "x@example.test", locale: "not a locale!" }, "locale"],
  ])("rejects %j with 400 on %s", async (body, path) => {
    const res = await w.as("tenantUser").post("/v1/contacts", body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it("does not let a viewer write", async () => {
    const res = await w.as("viewer").post("/v1/contacts", { email: "viewer@example.test" });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });
});

describe("GET /v1/contacts", () => {
  it("pages through 120 contacts at limit 50, visiting each exactly once", async () => {
    const tenant = w.as("manager");
    // ten at a time: 120 one after another pass 30 s when other files share the cores
    for (let i = 0; i < 120; i += 10)
      await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          tenant.post("/v1/contacts", { email: `page${String(i + k).padStart(3, "0")}@paging.test` }),
        ),
      );
    const all = await db().select({ id: contacts.id }).from(contacts).where(eq(contacts.tenantId, w.tenantA.id));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await w.as("viewer").get(`/v1/contacts?limit=50${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(all.length);
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      cursor = res.body.pageInfo.hasNextPage ? res.body.pageInfo.endCursor : null;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(all.length / 50));
    expect(seen).toHaveLength(all.length);
    expect(new Set(seen).size).toBe(all.length);
    expect(new Set(seen)).toEqual(new Set(all.map((a) => a.id)));
  }, 60_000);

  it("never lists another tenant's contacts", async () => {
    const res = await w.as("tenantAdmin").get("/v1/contacts?limit=200");
    expect(res.body.data.every((c: { tenantId: string }) => c.tenantId === w.tenantA.id)).toBe(true);
    expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(bContactId);
  });

  it("searches by email prefix, phone, first name, last name and full name", async () => {
    const m = w.as("manager");
    await m.post("/v1/contacts", {
      email: "zoe.quinn@search.test",
      firstName: "Zoë",
      lastName: "Quinn",
      phone: "+1 415 555 2671",
    });
    await m.post("/v1/contacts", { email: "zed@search.test", firstName: "Zed", lastName: "Quist" });
    const names = async (q: string) => {
      const res = await w.as("viewer").get(`/v1/contacts?search=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(res.body.data.length);
      return res.body.data.map((c: { firstName: string }) => c.firstName).sort();
    };
    expect(await names("ZOE.Q")).toEqual(["Zoë"]);
    expect(await names("zoe")).toEqual(["Zoë"]);
    expect(await names("quin")).toEqual(["Zoë"]);
    expect(await names("qu")).toEqual(["Zed", "Zoë"]);
    expect(await names("zoe quinn")).toEqual(["Zoë"]);
    expect(await names("quist zed")).toEqual(["Zed"]);
    expect(await names("+1 (415) 555")).toEqual(["Zoë"]);
    expect(await names("1415555")).toEqual(["Zoë"]);
    expect(await names("nobody")).toEqual([]);
  });

  it("rejects a bad limit and a bad cursor with 400", async () => {
    expect((await w.as("viewer").get("/v1/contacts?limit=201")).status).toBe(400);
    const bad = await w.as("viewer").get("/v1/contacts?cursor=garbage");
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0].path).toBe("cursor");
  });
});

describe("GET /v1/contacts/{id}", () => {
  it("returns the contact", async () => {
    const res = await w.as("viewer").get(`/v1/contacts/${ann.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ann.id, email: "ann.lee@example.test", firstName: "Annie", lastName: "Lee" });
  });

  it("is 404 for an unknown id", async () => {
    const res = await w.as("viewer").get("/v1/contacts/nope");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
  });
});

describe("suppression", () => {
  let id: string;
  beforeAll(async () => {
    id = (await w.as("manager").post("/v1/contacts", { email: "suppress-me@example.test" })).body.id;
  });

  it("suppresses with a reason, emits contact.suppressed and audits", async () => {
    const res = await w.as("tenantUser").post(`/v1/contacts/${id}/suppress`, { reason: "asked by phone" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, isSuppressed: true, suppressionReason: "asked by phone" });
    expect(Date.parse(res.body.suppressedAt)).toBeGreaterThan(Date.now() - 60_000);
    const events = await db().select().from(domainEvents).where(eq(domainEvents.type, "contact.suppressed"));
    expect(events.find((e) => e.data.contactId === id)).toMatchObject({
      tenantId: w.tenantA.id,
      data: { reason: "asked by phone" },
    });
    expect((await auditFor(id)).map((a) => a.action)).toContain("contact.suppressed");
  });

  it("refuses to suppress twice with 409 INVALID_TRANSITION", async () => {
    const res = await w.as("tenantUser").post(`/v1/contacts/${id}/suppress`, {});
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "suppressed", to: "suppressed" } });
  });

  it("keeps the suppression when the contact is upserted again", async () => {
    const res = await w
      .as("tenantUser")
      .post("/v1/contacts", { email: "suppress-me@example.test", firstName: "Still" });
    expect(res.body).toMatchObject({ id, isSuppressed: true, firstName: "Still" });
  });

  it("unsuppresses, clearing the reason and time", async () => {
    const res = await w.as("tenantUser").delete(`/v1/contacts/${id}/suppress`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, isSuppressed: false, suppressedAt: null, suppressionReason: null });
    expect((await auditFor(id)).map((a) => a.action)).toContain("contact.unsuppressed");
    const again = await w.as("tenantUser").delete(`/v1/contacts/${id}/suppress`);
    expect(again.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "active", to: "active" } });
  });

  it("suppresses without a body", async () => {
    const res = await w.as("tenantUser").post(`/v1/contacts/${id}/suppress`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ isSuppressed: true, suppressionReason: null });
  });

  it("does not let a viewer suppress or unsuppress", async () => {
    expect((await w.as("viewer").post(`/v1/contacts/${id}/suppress`, {})).status).toBe(403);
    expect((await w.as("viewer").delete(`/v1/contacts/${id}/suppress`)).status).toBe(403);
  });
});

describe("tenant isolation", () => {
  const routes = (id: string): [string, string, unknown?][] => [
    ["GET", `/v1/contacts/${id}`],
    ["POST", `/v1/contacts/${id}/suppress`, {}],
    ["DELETE", `/v1/contacts/${id}/suppress`],
    ["GET", `/v1/contacts/${id}/consent`],
    ["POST", `/v1/contacts/${id}/consent`, { channel: "email", source: "form" }],
    ["DELETE", `/v1/contacts/${id}/consent/email`],
    ["GET", `/v1/contacts/${id}/export`],
    ["DELETE", `/v1/contacts/${id}`],
  ];

  it("answers 404 for another tenant's contact id on every route, and changes nothing", async () => {
    for (const [method, path, body] of routes(bContactId)) {
      const client = w.as("tenantAdmin");
      const res =
        method === "GET"
          ? await client.get(path)
          : method === "POST"
            ? await client.post(path, body)
            : await client.delete(path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    const b = await w.as("tenantBAdmin").get(`/v1/contacts/${bContactId}`);
    expect(b.body).toMatchObject({ email: "b-only@example.test", isSuppressed: false });
  });

  it("upserting tenant B's email in tenant A creates a separate contact", async () => {
    const res = await w.as("tenantAdmin").post("/v1/contacts", { email: "b-only@example.test" });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(bContactId);
    expect(res.body.tenantId).toBe(w.tenantA.id);
  });
});

import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { feedbackSubmissions, inboxItems, outboxMessages } from "../../src/db/schema";
import { RESET_EMAILS_PER_HOUR } from "../../src/modules/auth/password.service";
import { request } from "../helpers/http";
import { operations } from "../helpers/openapi";
import { createWorld, db, seedUser, type World } from "../helpers/seed";
import { eventually, newContact, newLocation, newSolicitation } from "../inbox/helpers";

// OWASP API4:2023 Unrestricted Resource Consumption and API6:2023 Unrestricted Access to Sensitive
// Business Flows, specialised to this service's limits (decisions.md, interface-spec).

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

const MB = 1024 * 1024;

describe("API4 resource consumption", () => {
  it("every list operation refuses limit over 200 (and under 1) with a VALIDATION_ERROR on limit", async () => {
    const lists = operations().filter(
      (o) => o.method === "get" && (o.op.parameters ?? []).some((p) => p.in === "query" && p.name === "limit"),
    );
    const tenantScoped = lists.filter((o) => o.path.startsWith("/v1/") && !o.path.includes("{"));
    const platform = lists.filter((o) => !o.path.startsWith("/v1/") && !o.path.includes("{"));
    // an operation's four limits at once: a few hundred requests one after another pass the timeout on a busy machine
    for (const o of [...tenantScoped, ...platform]) {
      await Promise.all(
        ["201", "100000", "0", "-1"].map(async (limit) => {
          const res = await request("GET", `${o.path}?limit=${limit}`, {
            token: w.users.platformAdmin.token,
            tenantId: w.tenantA.id,
          });
          expect(res.status, `${o.path}?limit=${limit}: ${res.text.slice(0, 200)}`).toBe(400);
          expect(
            res.body.details.issues.map((i: { path: string }) => i.path),
            o.path,
          ).toContain("limit");
        }),
      );
    }
    console.log(
      `resource consumption: limit bounds checked on ${tenantScoped.length + platform.length} list operations`,
    );
    expect(tenantScoped.length).toBeGreaterThan(15);
  });

  it("JSON bodies over 1 MB are a 413 before parsing, on authenticated, public and auth routes", async () => {
    const big = JSON.stringify({ name: "x".repeat(2 * MB) });
    const location = await newLocation(w);
    const contact = await newContact(w);
    const s = await newSolicitation({ tenantId: w.tenantA.id, locationId: location.id, contactId: contact.id });
    for (const [path, token] of [
      ["/v1/locations", w.users.manager.token],
      ["/v1/contacts", w.users.manager.token],
      [`/v1/f/${s.token}`, undefined],
      ["/auth/login", undefined],
      ["/auth/forgot-password", undefined],
    ] as const) {
      const res = await request("POST", path, {
        token,
        tenantId: w.tenantA.id,
        body: big,
        headers: { "content-type": "application/json" },
      });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(413);
      expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
    }
    // just under the limit is parsed and validated as usual
    const under = await w.as("manager").post("/v1/locations", { name: "x".repeat(MB - 100) });
    expect(under.status).toBe(400);
    expect(under.body.code).toBe("VALIDATION_ERROR");
  });

  it("a 1 MB password is refused before any hashing, on every password route", async () => {
    const password = "p".repeat(1_000_000); // 1 MB, under the 1 MiB body cap: the password rule must answer
    for (const [path, body] of [
      ["/auth/login", { email: w.users.viewer.email, password }],
      ["/auth/reset-password", { token: "x".repeat(43), password }],
      ["/auth/setup-password", { token: "x".repeat(43), password, name: "N" }],
    ] as const) {
      const res = await request("POST", path, { body });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(
        res.body.details.issues.map((i: { path: string }) => i.path),
        path,
      ).toContain("password");
    }
  });

  it("CSV uploads over 5,000 rows are a 413 and import nothing", async () => {
    const rows = ["email", ...Array.from({ length: 5_001 }, (_, i) => `bulk-${i}@example.test`)].join("\n");
    const form = new FormData();
    form.set("file", new File([rows], "contacts.csv", { type: "text/csv" }));
    const contacts = await request("POST", "/v1/contacts/import/csv", {
      token: w.users.manager.token,
      tenantId: w.tenantA.id,
      body: form,
    });
    expect(contacts.status).toBe(413);
    expect(contacts.body.code).toBe("PAYLOAD_TOO_LARGE");
    const csv = ["name", ...Array.from({ length: 5_001 }, (_, i) => `Location ${i}`)].join("\n");
    const locations = await request("POST", "/v1/locations/bulk", {
      token: w.users.tenantAdmin.token,
      tenantId: w.tenantA.id,
      body: csv,
      headers: { "content-type": "text/csv" },
    });
    expect(locations.status).toBe(413);
    const list = await w.as("viewer").get("/v1/contacts?search=bulk-1&limit=1");
    expect(list.body.total).toBe(0);
  });
});

describe("API6 sensitive business flows", () => {
  it(`forgot-password sends at most ${RESET_EMAILS_PER_HOUR} reset emails per account per hour, whatever the request rate`, async () => {
    const target = await seedUser({
      grants: [{ role: "viewer", scopeType: "tenant", scopeId: w.tenantA.id }],
      tenantId: w.tenantA.id,
    });
    for (let i = 0; i < RESET_EMAILS_PER_HOUR + 5; i++) {
      const res = await request("POST", "/auth/forgot-password", { body: { email: target.email } });
      expect(res.status).toBe(200);
    }
    const sent = await eventually(
      () => db().select().from(outboxMessages).where(eq(outboxMessages.to, target.email)),
      (rows) => rows.length >= RESET_EMAILS_PER_HOUR,
    );
    await new Promise((r) => setTimeout(r, 300));
    const settled = await db().select().from(outboxMessages).where(eq(outboxMessages.to, target.email));
    expect(sent.length).toBe(RESET_EMAILS_PER_HOUR);
    expect(settled.length).toBe(RESET_EMAILS_PER_HOUR);
  });

  it("a burst of feedback posts on one link stores one submission and one inbox item", async () => {
    const location = await newLocation(w);
    const contact = await newContact(w);
    const s = await newSolicitation({ tenantId: w.tenantA.id, locationId: location.id, contactId: contact.id });
    const results = [];
    for (let i = 0; i < 25; i++)
      results.push(await request("POST", `/v1/f/${s.token}`, { body: { rating: 1 + (i % 5), text: `burst ${i}` } }));
    expect(
      results.every((r) => r.status === 201 || r.status === 200),
      results.map((r) => r.status).join(","),
    ).toBe(true);
    const rows = await db().select().from(feedbackSubmissions).where(eq(feedbackSubmissions.solicitationId, s.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.text).toBe("burst 24");
    const items = await db()
      .select()
      .from(inboxItems)
      .where(and(eq(inboxItems.tenantId, w.tenantA.id), eq(inboxItems.feedbackId, rows[0]!.id)));
    expect(items).toHaveLength(1);
  });
});

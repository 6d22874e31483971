import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, automationRuns } from "../../src/db/schema";
import { allMatch, conditionIssues, matches } from "../../src/modules/automation/conditions";
import { payloadFields } from "../../src/modules/events/catalogue";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation } from "../reviews/helpers";

let w: World;
let loc: { id: string; brandId: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
});

const rule = (o: Record<string, unknown> = {}) => ({
  name: "Negative reviews to the manager",
  triggerEventType: "review.negative",
  conditions: [{ field: "rating", op: "lte", value: 2 }],
  actions: [{ type: "add_tags", config: { tags: ["urgent"] } }],
  ...o,
});

const issuesOf = async (body: Record<string, unknown>) => {
  const res = await w.as("manager").post("/v1/automation-rules", body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return res.body.details.issues as { path: string; message: string }[];
};

describe("automation rules CRUD", () => {
  it("creates, reads, lists, updates and deletes a rule, with audit rows", async () => {
    const created = await w.as("manager").post("/v1/automation-rules", rule({ locationId: loc.id }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Negative reviews to the manager",
      triggerEventType: "review.negative",
      locationId: loc.id,
      brandId: null,
      isActive: true,
      conditions: [{ field: "rating", op: "lte", value: 2 }],
      actions: [{ type: "add_tags", config: { tags: ["urgent"] } }],
      hasSigningSecret: false,
      tenantId: w.tenantA.id,
    });
    expect(created.body.signingSecret).toBeUndefined();
    const id = created.body.id;
    expect((await w.as("viewer").get(`/v1/automation-rules/${id}`)).body.name).toBe("Negative reviews to the manager");
    const list = await w.as("viewer").get("/v1/automation-rules?triggerEventType=review.negative");
    expect(list.body.data.map((r: { id: string }) => r.id)).toContain(id);
    expect((await w.as("viewer").get("/v1/automation-rules?triggerEventType=inbox.overdue")).body.total).toBe(0);

    const patched = await w.as("manager").patch(`/v1/automation-rules/${id}`, {
      isActive: false,
      conditions: [{ field: "sentiment", op: "eq", value: "negative" }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      isActive: false,
      conditions: [{ field: "sentiment", op: "eq", value: "negative" }],
    });
    // a new trigger re-checks the stored conditions: contact.suppressed has no sentiment
    const badTrigger = await w
      .as("manager")
      .patch(`/v1/automation-rules/${id}`, { triggerEventType: "contact.suppressed" });
    expect(badTrigger.status).toBe(400);
    expect(badTrigger.body.details.issues[0].path).toBe("conditions.0.field");

    expect((await w.as("manager").delete(`/v1/automation-rules/${id}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/automation-rules/${id}`)).status).toBe(404);
    const audits = await db()
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.resourceId, id));
    expect(audits.map((a) => a.action).sort()).toEqual([
      "automation_rule.created",
      "automation_rule.deleted",
      "automation_rule.updated",
    ]);
  });

  it("returns a whsec_ signing secret once for rules with send_webhook", async () => {
    const res = await w
      .as("manager")
      .post(
        "/v1/automation-rules",
        rule({ actions: [{ type: "send_webhook", config: { url: "https://hooks.example.com/rule" } }] }),
      );
    expect(res.body.signingSecret).toMatch(/^whsec_/);
    expect(res.body.hasSigningSecret).toBe(true);
    const again = await w.as("viewer").get(`/v1/automation-rules/${res.body.id}`);
    expect(again.body.signingSecret).toBeUndefined();
    const patched = await w.as("manager").patch(`/v1/automation-rules/${res.body.id}`, { name: "Renamed" });
    expect(patched.body.signingSecret).toBeUndefined();
    await w.as("manager").delete(`/v1/automation-rules/${res.body.id}`);
  });

  it("validates conditions against the trigger's payload schema", async () => {
    expect(await issuesOf(rule({ conditions: [{ field: "stars", op: "eq", value: 1 }] }))).toEqual([
      { path: "conditions.0.field", message: expect.stringContaining('review.negative has no field "stars"') },
    ]);
    expect((await issuesOf(rule({ conditions: [{ field: "sentiment", op: "gt", value: 1 }] })))[0]!).toMatchObject({
      path: "conditions.0.op",
    });
    expect((await issuesOf(rule({ conditions: [{ field: "rating", op: "eq", value: "five" }] })))[0]!).toEqual({
      path: "conditions.0.value",
      message: "must be a number",
    });
    expect((await issuesOf(rule({ conditions: [{ field: "sentiment", op: "eq", value: "angry" }] })))[0]!).toEqual({
      path: "conditions.0.value",
      message: "must be one of positive, neutral, negative",
    });
    expect((await issuesOf(rule({ conditions: [{ field: "rating", op: "in", value: 2 }] })))[0]!).toEqual({
      path: "conditions.0.value",
      message: "in needs a non-empty array",
    });
    expect((await issuesOf(rule({ conditions: [{ field: "rating", op: "contains", value: 2 }] })))[0]!).toMatchObject({
      path: "conditions.0.op",
    });
    expect((await issuesOf(rule({ conditions: [{ field: "topics", op: "eq", value: "staff" }] })))[0]!).toEqual({
      path: "conditions.0.op",
      message: "topics is a list: use contains",
    });
    expect((await issuesOf(rule({ conditions: [{ field: "rating", op: "between", value: 2 }] })))[0]!.path).toBe(
      "conditions.0.op",
    );
    expect((await issuesOf(rule({ triggerEventType: "review.deleted" })))[0]!.path).toBe("triggerEventType");
    // nested fields of review.updated are addressable
    const nested = await w.as("manager").post(
      "/v1/automation-rules",
      rule({
        triggerEventType: "review.updated",
        conditions: [{ field: "previous.sentiment", op: "neq", value: "negative" }],
      }),
    );
    expect(nested.status).toBe(201);
    await w.as("manager").delete(`/v1/automation-rules/${nested.body.id}`);
  });

  it("validates actions and references to other tenants", async () => {
    const bLoc = await newLocation(w, "tenantBAdmin");
    expect((await issuesOf(rule({ actions: [{ type: "launch_rocket", config: {} }] })))[0]!.path).toBe(
      "actions.0.type",
    );
    expect((await issuesOf(rule({ actions: [] })))[0]!.path).toBe("actions");
    expect(
      await issuesOf(rule({ actions: [{ type: "send_webhook", config: { url: "https://169.254.169.254/latest" } }] })),
    ).toEqual([{ path: "actions.0.config.url", message: expect.stringContaining("URL refused: link-local") }]);
    expect(
      await issuesOf(rule({ actions: [{ type: "assign_inbox", config: { userId: w.users.tenantBAdmin.id } }] })),
    ).toEqual([{ path: "actions.0.config.userId", message: "Not a user of this tenant" }]);
    expect(await issuesOf(rule({ locationId: bLoc.id }))).toEqual([
      { path: "locationId", message: "Unknown location" },
    ]);
    expect(await issuesOf(rule({ brandId: w.tenantB.brandId }))).toEqual([
      { path: "brandId", message: "Unknown brand" },
    ]);
    expect(
      (await issuesOf(rule({ actions: [{ type: "create_response_draft", config: { mode: "template" } }] })))[0]!.path,
    ).toBe("actions.0.config.text");
    expect(
      (await issuesOf(rule({ actions: [{ type: "notify_email", config: { subject: "x", text: "y" } }] })))[0]!.path,
    ).toBe("actions.0.config.to");
    expect(
      (
        await issuesOf(
          rule({ actions: [{ type: "send_solicitation", config: { channel: "email", campaignId: "nope" } }] }),
        )
      )[0]!,
    ).toEqual({ path: "actions.0.config.campaignId", message: "Unknown campaign" });
  });

  it("needs manager to write; another tenant's rule is 404", async () => {
    for (const who of ["viewer", "tenantUser"] as const)
      expect((await w.as(who).post("/v1/automation-rules", rule())).status).toBe(403);
    const created = await w.as("manager").post("/v1/automation-rules", rule({ isActive: false }));
    const id = created.body.id;
    expect((await w.as("tenantUser").patch(`/v1/automation-rules/${id}`, { name: "x" })).status).toBe(403);
    expect((await w.as("viewer").delete(`/v1/automation-rules/${id}`)).status).toBe(403);
    const b = w.as("tenantBAdmin");
    expect((await b.get(`/v1/automation-rules/${id}`)).status).toBe(404);
    expect((await b.patch(`/v1/automation-rules/${id}`, { name: "x" })).status).toBe(404);
    expect((await b.delete(`/v1/automation-rules/${id}`)).status).toBe(404);
    expect((await b.get(`/v1/automation-rules/${id}/runs`)).status).toBe(404);
    expect((await b.get("/v1/automation-rules")).body.data.map((r: { id: string }) => r.id)).not.toContain(id);
  });
});

describe("conditions", () => {
  const data = {
    rating: 2,
    sentiment: "negative",
    topics: ["staff", "wait_time"],
    siteType: "google",
    previous: { rating: 4 },
    text: "Rude STAFF",
  };

  it.each([
    ["eq", { field: "sentiment", op: "eq", value: "negative" }, { field: "sentiment", op: "eq", value: "positive" }],
    ["neq", { field: "siteType", op: "neq", value: "yelp" }, { field: "siteType", op: "neq", value: "google" }],
    ["gt", { field: "previous.rating", op: "gt", value: 3 }, { field: "rating", op: "gt", value: 2 }],
    ["gte", { field: "rating", op: "gte", value: 2 }, { field: "rating", op: "gte", value: 3 }],
    ["lt", { field: "rating", op: "lt", value: 3 }, { field: "rating", op: "lt", value: 2 }],
    ["lte", { field: "rating", op: "lte", value: 2 }, { field: "rating", op: "lte", value: 1 }],
    [
      "in",
      { field: "siteType", op: "in", value: ["google", "yelp"] },
      { field: "siteType", op: "in", value: ["yelp", "facebook"] },
    ],
    [
      "contains (list)",
      { field: "topics", op: "contains", value: "staff" },
      { field: "topics", op: "contains", value: "price" },
    ],
    [
      "contains (text, any case)",
      { field: "text", op: "contains", value: "staff" },
      { field: "text", op: "contains", value: "price" },
    ],
  ] as const)("%s matches and refuses", (_, yes, no) => {
    expect(matches(yes as never, data)).toBe(true);
    expect(matches(no as never, data)).toBe(false);
  });

  it("treats a missing or null field as failing comparisons, and needs every condition", () => {
    expect(matches({ field: "rating", op: "gt", value: 0 }, { rating: null })).toBe(false);
    expect(matches({ field: "rating", op: "eq", value: null }, {})).toBe(true);
    expect(matches({ field: "rating", op: "neq", value: 1 }, {})).toBe(true);
    expect(
      allMatch(
        [
          { field: "rating", op: "lte", value: 2 },
          { field: "topics", op: "contains", value: "staff" },
        ],
        data,
      ),
    ).toBe(true);
    expect(
      allMatch(
        [
          { field: "rating", op: "lte", value: 2 },
          { field: "topics", op: "contains", value: "price" },
        ],
        data,
      ),
    ).toBe(false);
    expect(allMatch([], data)).toBe(true);
  });

  it("derives condition fields from each payload schema", () => {
    expect([...payloadFields("review.updated").keys()]).toEqual([
      "reviewId",
      "locationId",
      "siteType",
      "rating",
      "sentiment",
      "topics",
      "previous.rating",
      "previous.sentiment",
    ]);
    expect(payloadFields("inbox.assigned").get("type")).toEqual({
      type: "string",
      nullable: false,
      options: ["review", "feedback"],
    });
    expect(conditionIssues("campaign.sent", [{ field: "blocked", op: "gt", value: 10 }])).toEqual([]);
  });
});

afterAll(async () => {
  // runs of deleted rules go with them
  const left = await db()
    .select()
    .from(automationRuns)
    .where(and(eq(automationRuns.tenantId, w.tenantA.id)));
  expect(left).toEqual([]);
});

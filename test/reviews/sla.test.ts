import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray, like } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents, inboxItems, outboxMessages, reviews } from "../../src/db/schema";
import worker from "../../src/index";
import { escalateOverdue } from "../../src/modules/reviews/escalation";
import { createWorld, db, type World } from "../helpers/seed";
import { connect, mintTestKey, structured } from "../mcp/helpers";
import { ingest, newLocation } from "./helpers";

let w: World;
let loc: { id: string };
let locB: { id: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w);
  locB = await newLocation(w, "tenantBAdmin");
});

const rule = (extra: Record<string, unknown> = {}) => ({
  name: "Negative reviews within a day",
  filter: { rating: [1, 2] },
  responseWindowHours: 24,
  escalateAfterHours: 48,
  escalateToRole: "manager",
  ...extra,
});

describe("/v1/settings/sla-rules", () => {
  it("creates, reads, updates and deletes (tenant_admin), with audit rows", async () => {
    const created = await w
      .as("tenantAdmin")
      .post(
        "/v1/settings/sla-rules",
        rule({ filter: { rating: [1], siteType: ["google"], sentiment: ["negative"], locationId: [loc.id] } }),
      );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Negative reviews within a day",
      filter: { rating: [1], siteType: ["google"], sentiment: ["negative"], locationId: [loc.id] },
      responseWindowHours: 24,
      escalateAfterHours: 48,
      escalateToRole: "manager",
      isActive: true,
    });
    const id = created.body.id;
    expect((await w.as("viewer").get(`/v1/settings/sla-rules/${id}`)).body).toEqual(created.body);
    expect((await w.as("viewer").get("/v1/settings/sla-rules")).body.data.map((r: { id: string }) => r.id)).toContain(
      id,
    );
    const patched = await w
      .as("tenantAdmin")
      .patch(`/v1/settings/sla-rules/${id}`, { isActive: false, escalateToRole: null });
    expect(patched.body).toMatchObject({ isActive: false, escalateToRole: null, responseWindowHours: 24 });
    expect((await w.as("tenantAdmin").delete(`/v1/settings/sla-rules/${id}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/settings/sla-rules/${id}`)).status).toBe(404);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, id));
    expect(audit.map((a) => a.action).sort()).toEqual(["sla_rule.created", "sla_rule.deleted", "sla_rule.updated"]);
  });

  it("validates windows, roles, filter keys and locations", async () => {
    const bad = await w
      .as("tenantAdmin")
      .post("/v1/settings/sla-rules", rule({ escalateToRole: "boss", filter: { stars: [1] } }));
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["escalateToRole", "filter"]);
    const window = await w.as("tenantAdmin").post("/v1/settings/sla-rules", rule({ escalateAfterHours: 12 }));
    expect(window.body.details.issues).toEqual([
      { path: "escalateAfterHours", message: "escalateAfterHours must be at least responseWindowHours" },
    ]);
    const foreign = await w
      .as("tenantAdmin")
      .post("/v1/settings/sla-rules", rule({ filter: { locationId: [locB.id] } }));
    expect(foreign.body.details.issues).toEqual([{ path: "filter.locationId", message: "Unknown location" }]);
    const ok = (await w.as("tenantAdmin").post("/v1/settings/sla-rules", rule())).body;
    const order = await w.as("tenantAdmin").patch(`/v1/settings/sla-rules/${ok.id}`, { responseWindowHours: 72 });
    expect(order.status).toBe(400);
    expect(order.body.details.issues[0].path).toBe("escalateAfterHours");
    await w.as("tenantAdmin").delete(`/v1/settings/sla-rules/${ok.id}`);
  });

  it("managers and viewers cannot write; another tenant's rule is 404", async () => {
    expect((await w.as("manager").post("/v1/settings/sla-rules", rule())).status).toBe(403);
    const created = (await w.as("tenantAdmin").post("/v1/settings/sla-rules", rule({ isActive: false }))).body;
    expect((await w.as("viewer").patch(`/v1/settings/sla-rules/${created.id}`, { name: "x" })).status).toBe(403);
    const b = w.as("tenantBAdmin");
    expect((await b.get(`/v1/settings/sla-rules/${created.id}`)).status).toBe(404);
    expect((await b.patch(`/v1/settings/sla-rules/${created.id}`, { name: "x" })).status).toBe(404);
    expect((await b.delete(`/v1/settings/sla-rules/${created.id}`)).status).toBe(404);
  });
});

describe("overdue responses and escalation", () => {
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
  const age = (id: string, h: number) =>
    db()
      .update(reviews)
      .set({ createdAt: hoursAgo(h) })
      .where(eq(reviews.id, id));
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await w.as("tenantAdmin").post("/v1/settings/sla-rules", rule());
    await w.as("tenantBAdmin").post("/v1/settings/sla-rules", rule({ escalateToRole: "tenant_admin" }));
    ids.overdue = (await ingest(w, { locationId: loc.id, siteType: "google", rating: 1, text: "Awful" })).id;
    ids.late = (await ingest(w, { locationId: loc.id, siteType: "google", rating: 2, text: "Bad and slow" })).id;
    ids.happy = (await ingest(w, { locationId: loc.id, siteType: "google", rating: 5, text: "Great" })).id;
    ids.fresh = (await ingest(w, { locationId: loc.id, siteType: "google", rating: 1, text: "Terrible" })).id;
    ids.answered = (await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 1, text: "Bad" })).id;
    ids.tenantB = (
      await ingest(w, { locationId: locB.id, siteType: "google", rating: 1, text: "Bad" }, "tenantBAdmin")
    ).id;
    await age(ids.overdue!, 30);
    await age(ids.late!, 50);
    await age(ids.happy!, 50);
    await age(ids.answered!, 50);
    await age(ids.tenantB!, 50);
    const resp = await w.as("tenantUser").post(`/v1/reviews/${ids.answered}/responses`, { text: "Sorry" });
    for (const a of ["submit", "approve", "publish"]) await w.as("manager").post(`/v1/responses/${resp.body.id}/${a}`);
  });

  it("GET /v1/responses/overdue lists covered reviews past the window without a published response, most overdue first", async () => {
    const res = await w.as("viewer").get("/v1/responses/overdue");
    expect(res.status).toBe(200);
    expect(res.body.map((r: { id: string }) => r.id)).toEqual([ids.late, ids.overdue]);
    expect(res.body[0].sla).toMatchObject({ ruleName: "Negative reviews within a day", escalatedAt: null });
    expect(Date.parse(res.body[0].sla.escalateAt) - Date.parse(res.body[0].sla.dueAt)).toBe(24 * 3600_000);
    const b = await w.as("tenantBAdmin").get("/v1/responses/overdue");
    expect(b.body.map((r: { id: string }) => r.id)).toEqual([ids.tenantB]);
  });

  it("sla.overdue over MCP (read:reviews) answers { data } with the tenant's overdue reviews and their due time, text marked untrusted", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews"]).token });
    const res = await client.callTool({ name: "sla.overdue", arguments: { limit: 10 } });
    expect(res.isError).toBeFalsy();
    const data = structured<{ data: { id: string; locationId: string; sla: { dueAt: string } }[] }>(res).data;
    // tenant B's overdue review is not there
    expect(data.map((r) => r.id)).toEqual([ids.late, ids.overdue]);
    const rest = await w.as("viewer").get("/v1/responses/overdue");
    expect(data[0]!.sla.dueAt).toBe(rest.body[0].sla.dueAt);
    const marked = (res.content as { _meta?: Record<string, { paths: string[] }> }[])[0]!._meta;
    expect(marked?.["io.reputation-ops/untrusted"]?.paths).toEqual(["data[].text", "data[].authorName"]);
    const b = await connect({ token: mintTestKey(w.tenantB.id, ["read:reviews"]).token });
    const resB = await b.client.callTool({ name: "sla.overdue", arguments: {} });
    expect(structured<{ data: { id: string }[] }>(resB).data.map((r) => r.id)).toEqual([ids.tenantB]);
    // without read:reviews the tool is refused
    const none = await connect({ token: mintTestKey(w.tenantA.id, ["read:feedback"]).token });
    const refused = await none.client.callTool({ name: "sla.overdue", arguments: {} });
    expect(refused.isError).toBe(true);
  });

  it("the sweep escalates reviews past escalateAfterHours: inbox item marked, inbox.overdue, email to the role's users", async () => {
    const { escalated } = await escalateOverdue(env, db(), new Date());
    expect(escalated).toBe(2); // tenant A's 50-hour-old negative review and tenant B's
    const [item] = await db().select().from(inboxItems).where(eq(inboxItems.reviewId, ids.late!));
    expect(item!.escalatedAt).toBeTruthy();
    expect(item!.escalationReason).toBe(
      'SLA rule "Negative reviews within a day": no published response within 48 hours',
    );
    const [notYet] = await db().select().from(inboxItems).where(eq(inboxItems.reviewId, ids.overdue!));
    expect(notYet!.escalatedAt).toBeNull();
    const events = await db().select().from(domainEvents).where(eq(domainEvents.type, "inbox.overdue"));
    expect(events.map((e) => e.data.reviewId).sort()).toEqual([ids.late, ids.tenantB].sort());
    const mail = await db()
      .select()
      .from(outboxMessages)
      .where(inArray(outboxMessages.to, [w.users.manager.email, w.users.tenantBAdmin.email]));
    expect(mail.map((m) => m.to).sort()).toEqual([w.users.manager.email, w.users.tenantBAdmin.email].sort());
    const mine = mail.find((m) => m.to === w.users.manager.email)!;
    expect(mine).toMatchObject({
      tenantId: w.tenantA.id,
      channel: "email",
      subject: "1 review overdue for a response (Negative reviews within a day)",
    });
    expect(mine.text).toContain(ids.late);
    expect(mine.text).toContain('"Bad and slow"');
    const overdue = await w.as("viewer").get("/v1/responses/overdue");
    expect(overdue.body[0].sla.escalatedAt).toBe(item!.escalatedAt);
  });

  it("is idempotent: the cron run again escalates nothing new and sends nothing", async () => {
    // counted by kind: the same cron run also hands the first escalation's inbox.overdue events to their
    // handlers, whose own notifications are not a second escalation (and land whenever the queue delivers)
    const escalations = async () => ({
      events: (await db().select().from(domainEvents).where(eq(domainEvents.type, "inbox.overdue"))).length,
      mail: (await db().select().from(outboxMessages).where(like(outboxMessages.subject, "%overdue for a response%")))
        .length,
    });
    const before = await escalations();
    expect(before).toEqual({ events: 2, mail: 2 });
    await worker.scheduled(createScheduledController({ cron: "*/5 * * * *", scheduledTime: Date.now() }), env);
    expect(await escalations()).toEqual(before);
  });
});

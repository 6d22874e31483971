import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  automationRuns,
  domainEvents,
  inboxItems,
  recommendations,
  reviewResponses,
  solicitations,
} from "../../src/db/schema";
import { MAX_CHAIN_DEPTH, runAutomation } from "../../src/modules/automation/engine";
import { emailIdsTo, nextEmailTo } from "../helpers/dev-mailbox";
import { pollUntil } from "../helpers/poll";
import { createWorld, db, type World } from "../helpers/seed";
import { newLocation } from "../reviews/helpers";
import { endpoint, env, event, seedReview, verifyStandardWebhook } from "./helpers";

let w: World;

beforeAll(async () => {
  w = await createWorld();
  // quiet hours off (start == end): send_solicitation's outcome must not depend on the time the suite runs
  const compliance = await w
    .as("tenantAdmin")
    .put("/v1/compliance", { quietHoursStart: "00:00", quietHoursEnd: "00:00" });
  expect(compliance.status).toBe(200);
});
afterAll(() => {});

/** Each test gets its own location and scopes its rules to it, so events of other tests never reach them. */
async function setup(
  actions: unknown[],
  o: { trigger?: string; conditions?: unknown[]; scope?: "location" | "brand" } = {},
) {
  const loc = await newLocation(w, "manager", { name: `Downtown ${Math.random().toString(36).slice(2, 6)}` });
  const res = await w.as("manager").post("/v1/automation-rules", {
    name: "rule",
    triggerEventType: o.trigger ?? "review.negative",
    conditions: o.conditions ?? [],
    ...(o.scope === "brand" ? { brandId: loc.brandId } : { locationId: loc.id }),
    actions,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { loc, rule: res.body as { id: string; signingSecret?: string } };
}

const reviewEvent = (
  tenantId: string,
  review: { id: string; locationId: string; rating: number | null },
  type: "review.negative" | "review.created" = "review.negative",
  extra: Record<string, unknown> = {},
) =>
  event(tenantId, type, {
    reviewId: review.id,
    locationId: review.locationId,
    siteType: "google",
    rating: review.rating,
    sentiment: "negative",
    topics: ["service"],
    ...extra,
  });

const runsOf = (ruleId: string) => db().select().from(automationRuns).where(eq(automationRuns.ruleId, ruleId));
const item = async (id: string) => (await db().select().from(inboxItems).where(eq(inboxItems.id, id)).get())!;

describe("actions", () => {
  it("assign_inbox assigns the event's inbox item and emits inbox.assigned carrying the rule id", async () => {
    const { loc, rule } = await setup([{ type: "assign_inbox", config: { userId: w.users.tenantUser.id } }]);
    const { review, item: it0 } = await seedReview(w.tenantA.id, loc.id);
    const e = reviewEvent(w.tenantA.id, review);
    expect(await runAutomation(e, env)).toEqual([{ ruleId: rule.id, outcome: "succeeded" }]);
    expect(await item(it0.id)).toMatchObject({ status: "assigned", assignedToUserId: w.users.tenantUser.id });
    const emitted = (await db().select().from(domainEvents).where(eq(domainEvents.type, "inbox.assigned"))).find(
      (x) => x.data.inboxItemId === it0.id,
    )!;
    expect(emitted.data).toMatchObject({
      inboxItemId: it0.id,
      reviewId: review.id,
      locationId: loc.id,
      assignedToUserId: w.users.tenantUser.id,
      causedByRuleId: rule.id,
      automationChain: [rule.id],
      automationDepth: 1,
    });
    const [run] = await runsOf(rule.id);
    expect(run).toMatchObject({
      eventId: e.id,
      outcome: "succeeded",
      error: null,
      actions: [{ type: "assign_inbox", outcome: "succeeded", result: { inboxItemId: it0.id, changed: true } }],
    });
  });

  it("assign_inbox follows the inbox's own rule: an item already in progress keeps its status, and the same assignee changes nothing", async () => {
    const { loc, rule } = await setup([{ type: "assign_inbox", config: { userId: w.users.tenantUser.id } }]);
    const { review, item: it0 } = await seedReview(w.tenantA.id, loc.id);
    // a manager is working on it: REST's assign to another person keeps "in_progress" (POST /v1/inbox/{id}/assign)
    await db()
      .update(inboxItems)
      .set({ status: "in_progress", assignedToUserId: w.users.manager.id })
      .where(eq(inboxItems.id, it0.id));
    expect(await runAutomation(reviewEvent(w.tenantA.id, review), env)).toEqual([
      { ruleId: rule.id, outcome: "succeeded" },
    ]);
    expect(await item(it0.id)).toMatchObject({ status: "in_progress", assignedToUserId: w.users.tenantUser.id });
    // the same assignee again: nothing changes, not even back to "assigned"
    expect(await runAutomation(reviewEvent(w.tenantA.id, review), env)).toEqual([
      { ruleId: rule.id, outcome: "succeeded" },
    ]);
    expect(await item(it0.id)).toMatchObject({ status: "in_progress", assignedToUserId: w.users.tenantUser.id });
    const runs = await runsOf(rule.id);
    expect(runs.map((r) => (r.actions[0]!.result as { changed: boolean }).changed).sort()).toEqual([false, true]);
  });

  it("add_tags merges tags into the inbox item", async () => {
    const { loc, rule } = await setup([{ type: "add_tags", config: { tags: ["urgent", "service"] } }]);
    const { review, item: it0 } = await seedReview(w.tenantA.id, loc.id);
    await db()
      .update(inboxItems)
      .set({ tags: ["vip", "service"] })
      .where(eq(inboxItems.id, it0.id));
    await runAutomation(reviewEvent(w.tenantA.id, review), env);
    expect((await item(it0.id)).tags).toEqual(["vip", "service", "urgent"]);
    expect((await runsOf(rule.id))[0]!.outcome).toBe("succeeded");
  });

  it("add_tags follows the inbox's own tag rule: a tag in another case is the same tag, and an item keeps at most 20", async () => {
    const { loc, rule } = await setup([{ type: "add_tags", config: { tags: ["URGENT", "Service", "new"] } }]);
    const { review, item: it0 } = await seedReview(w.tenantA.id, loc.id);
    const existing = ["urgent", "service", ...Array.from({ length: 17 }, (_, i) => `t${i}`)];
    await db().update(inboxItems).set({ tags: existing }).where(eq(inboxItems.id, it0.id));
    await runAutomation(reviewEvent(w.tenantA.id, review), env);
    // POST /v1/inbox/{id}/tags would store the same: the first spelling of each tag, at most 20
    expect((await item(it0.id)).tags).toEqual([...existing, "new"]);
    const [run] = await runsOf(rule.id);
    expect(run!.actions).toEqual([
      expect.objectContaining({
        type: "add_tags",
        outcome: "succeeded",
        result: expect.objectContaining({ changed: true }),
      }),
    ]);
  });

  it("create_response_draft renders a template, or drafts with the reviews engine", async () => {
    const { loc, rule } = await setup([
      {
        type: "create_response_draft",
        config: {
          mode: "template",
          text: "Hi {{review.authorName}}, sorry about your {{data.rating}}-star visit to {{location.name}}.{{unknown.token}}",
        },
      },
      { type: "create_response_draft", config: { mode: "ai" } },
    ]);
    const { review } = await seedReview(w.tenantA.id, loc.id, { authorName: "Dana Reyes", rating: 2 });
    await runAutomation(reviewEvent(w.tenantA.id, review), env);
    const drafts = await db().select().from(reviewResponses).where(eq(reviewResponses.reviewId, review.id));
    const locName = (await w.as("viewer").get(`/v1/locations/${loc.id}`)).body.name;
    expect(drafts.find((d) => !d.aiGenerated)).toMatchObject({
      status: "draft",
      text: `Hi Dana Reyes, sorry about your 2-star visit to ${locName}.`,
    });
    const ai = drafts.find((d) => d.aiGenerated)!;
    expect(ai.status).toBe("draft");
    expect(ai.text).toContain("Dana");
    expect((await runsOf(rule.id))[0]!.actions.map((a) => a.outcome)).toEqual(["succeeded", "succeeded"]);
  });

  it("send_webhook POSTs the event signed with the rule's own secret", async () => {
    const { loc, rule } = await setup([{ type: "send_webhook", config: { url: "https://hooks.example.com/rules" } }]);
    const { review } = await seedReview(w.tenantA.id, loc.id);
    const site = endpoint();
    const e = reviewEvent(w.tenantA.id, review);
    await runAutomation(e, env, { fetch: site.fetch });
    expect(site.calls).toHaveLength(1);
    const call = site.calls[0]!;
    expect(call.url).toBe("https://hooks.example.com/rules");
    expect(JSON.parse(call.body)).toMatchObject({
      id: e.id,
      type: "review.negative",
      ruleId: rule.id,
      data: { reviewId: review.id },
    });
    expect(await verifyStandardWebhook(rule.signingSecret!, call.headers, call.body)).toBe(true);
    const [run] = await runsOf(rule.id);
    expect(run!.actions[0]).toMatchObject({
      type: "send_webhook",
      outcome: "succeeded",
      result: { responseStatus: 200 },
    });
  });

  it("notify_email mails the listed addresses and the users of a role", async () => {
    const { loc, rule } = await setup([
      {
        type: "notify_email",
        config: {
          to: ["ops@example.com"],
          toRole: "manager",
          subject: "{{data.rating}}★ review at {{location.name}}",
          text: "Review {{data.reviewId}} needs attention ({{event.type}}).",
        },
      },
    ]);
    const { review } = await seedReview(w.tenantA.id, loc.id, { rating: 1 });
    const recipients = ["ops@example.com", w.users.manager.email];
    // these addresses may hold mail from earlier tests (other rules fire on the same tenant): wait for the new one
    const seen = await Promise.all(recipients.map(emailIdsTo));
    await runAutomation(reviewEvent(w.tenantA.id, review), env);
    const locName = (await w.as("viewer").get(`/v1/locations/${loc.id}`)).body.name;
    for (const [i, to] of recipients.entries()) {
      const mail = await nextEmailTo(to, seen[i]!);
      expect(mail).toMatchObject({
        tenantId: w.tenantA.id,
        subject: `1★ review at ${locName}`,
        text: `Review ${review.id} needs attention (review.negative).`,
      });
    }
    expect((await runsOf(rule.id))[0]!.actions[0]).toMatchObject({ outcome: "succeeded", result: { recipients: 2 } });
  });

  it("send_solicitation creates a solicitation through the policy engine, carrying the rule chain", async () => {
    const { loc, rule } = await setup([{ type: "send_solicitation", config: { channel: "email" } }], {
      trigger: "contact.suppressed",
    });
    // consented: PENDING and queued; the event names the rule so it never retriggers itself
    const ok = await w.as("manager").post("/v1/contacts", { email: "rule-ok@example.com" });
    await w.as("manager").post(`/v1/contacts/${ok.body.id}/consent`, { channel: "email", source: "form" });
    const e1 = event(w.tenantA.id, "contact.suppressed", {
      contactId: ok.body.id,
      suppressedAt: "2026-01-01T00:00:00Z",
      reason: null,
      locationId: loc.id,
    });
    await runAutomation(e1, env);
    const sent = await db().select().from(solicitations).where(eq(solicitations.contactId, ok.body.id));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ status: "PENDING", locationId: loc.id, channel: "email" });
    expect(sent[0]!.metadata).toEqual({
      automation: { causedByRuleId: rule.id, automationChain: [rule.id], automationDepth: 1 },
    });
    const created = await db()
      .select()
      .from(domainEvents)
      .where(and(eq(domainEvents.type, "solicitation.created"), eq(domainEvents.tenantId, w.tenantA.id)));
    expect(created.find((x) => x.data.solicitationId === sent[0]!.id)!.data).toMatchObject({
      causedByRuleId: rule.id,
      automationChain: [rule.id],
      automationDepth: 1,
    });
    const run = (await runsOf(rule.id)).find((r) => r.eventId === e1.id)!;
    expect(run.actions[0]).toMatchObject({
      outcome: "succeeded",
      result: { contactId: ok.body.id, solicitationId: sent[0]!.id, status: "PENDING" },
    });

    // no consent: the policy blocks it, and the action still succeeds (a blocked solicitation is not an error)
    const none = await w.as("manager").post("/v1/contacts", { email: "rule-none@example.com" });
    const e2 = event(w.tenantA.id, "contact.suppressed", {
      contactId: none.body.id,
      suppressedAt: "2026-01-01T00:00:00Z",
      reason: null,
      locationId: loc.id,
    });
    await runAutomation(e2, env);
    const blocked = (await runsOf(rule.id)).find((r) => r.eventId === e2.id)!;
    expect(blocked.actions[0]).toMatchObject({
      outcome: "succeeded",
      result: { status: "BLOCKED", blockedReason: "NO_CONSENT" },
    });

    // an unknown contact: nothing is created and the action fails with the reason
    const e3 = event(w.tenantA.id, "contact.suppressed", {
      contactId: "no-such-contact",
      suppressedAt: "2026-01-01T00:00:00Z",
      reason: null,
      locationId: loc.id,
    });
    await runAutomation(e3, env);
    expect((await runsOf(rule.id)).find((r) => r.eventId === e3.id)!.actions[0]).toMatchObject({
      outcome: "failed",
      error: "contactId: Unknown contact",
    });
  });

  it("create_recommendation writes a recommendation through the recommendations service", async () => {
    const { loc, rule } = await setup([
      {
        type: "create_recommendation",
        config: {
          type: "respond_fast",
          title: "Reply to {{review.authorName}}",
          description: "Rating {{data.rating}}",
          priority: "high",
          actionPayload: { reviewId: "x" },
        },
      },
    ]);
    const { review } = await seedReview(w.tenantA.id, loc.id, { authorName: "Sam", rating: 1 });
    const e = reviewEvent(w.tenantA.id, review);
    await runAutomation(e, env);
    const rows = await db()
      .select()
      .from(recommendations)
      .where(and(eq(recommendations.tenantId, w.tenantA.id), eq(recommendations.type, "respond_fast")));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      scopeType: "location",
      scopeId: loc.id,
      title: "Reply to Sam",
      description: "Rating 1",
      priority: "high",
      status: "pending",
      actionPayload: { reviewId: "x" },
    });
    expect((await runsOf(rule.id))[0]!.actions[0]).toMatchObject({
      outcome: "succeeded",
      result: { recommendationId: rows[0]!.id, created: true },
    });
  });

  it("records a partial run when some actions fail", async () => {
    const { loc, rule } = await setup([
      { type: "add_tags", config: { tags: ["x"] } },
      { type: "send_webhook", config: { url: "https://hooks.example.com/down" } },
    ]);
    const { review } = await seedReview(w.tenantA.id, loc.id);
    await runAutomation(reviewEvent(w.tenantA.id, review), env, {
      fetch: endpoint(() => new Response("", { status: 500 })).fetch,
    });
    const runs = await w.as("viewer").get(`/v1/automation-rules/${rule.id}/runs`);
    expect(runs.status).toBe(200);
    expect(runs.body.data[0]).toMatchObject({
      outcome: "partial",
      error: "1 of 2 actions failed",
      actions: [
        { type: "add_tags", outcome: "succeeded" },
        { type: "send_webhook", outcome: "failed", error: "HTTP 500" },
      ],
    });
  });
});

describe("matching, scope, idempotency and loop protection", () => {
  it("runs only when every condition matches", async () => {
    const { loc, rule } = await setup([{ type: "add_tags", config: { tags: ["low"] } }], {
      conditions: [
        { field: "rating", op: "lte", value: 2 },
        { field: "topics", op: "contains", value: "service" },
      ],
    });
    const { review: low } = await seedReview(w.tenantA.id, loc.id, { rating: 1 });
    const { review: mid } = await seedReview(w.tenantA.id, loc.id, { rating: 3 });
    await runAutomation(reviewEvent(w.tenantA.id, low), env);
    await runAutomation(reviewEvent(w.tenantA.id, mid), env);
    await runAutomation(reviewEvent(w.tenantA.id, low, "review.negative", { topics: ["price"] }), env);
    const runs = await runsOf(rule.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.outcome).toBe("succeeded");
  });

  it("scopes rules to a location or a brand, resolving the location through the review", async () => {
    const { loc, rule } = await setup([{ type: "add_tags", config: { tags: ["scoped"] } }]);
    const other = await newLocation(w);
    const { review: here } = await seedReview(w.tenantA.id, loc.id);
    const { review: there } = await seedReview(w.tenantA.id, other.id);
    await runAutomation(reviewEvent(w.tenantA.id, there), env);
    expect(await runsOf(rule.id)).toHaveLength(0);
    // response events carry no locationId: the engine finds it through the review
    const resp = await setup([{ type: "add_tags", config: { tags: ["resp"] } }], { trigger: "response.approved" });
    const { review: r2, item: i2 } = await seedReview(w.tenantA.id, resp.loc.id);
    await runAutomation(
      event(w.tenantA.id, "response.approved", { responseId: "p1", reviewId: r2.id, status: "approved" }),
      env,
    );
    expect((await item(i2.id)).tags).toEqual(["resp"]);
    await runAutomation(
      event(w.tenantA.id, "response.approved", { responseId: "p2", reviewId: here.id, status: "approved" }),
      env,
    );
    expect(await runsOf(resp.rule.id)).toHaveLength(1);

    const brandRes = await w.as("tenantAdmin").post("/v1/brands", { name: `Other brand ${Date.now()}` });
    const brandLoc = await newLocation(w, "manager", { brandId: brandRes.body.id });
    const brandRule = await w.as("manager").post("/v1/automation-rules", {
      name: "brand",
      triggerEventType: "review.created",
      brandId: brandRes.body.id,
      actions: [{ type: "add_tags", config: { tags: ["brand"] } }],
    });
    const { review: inBrand, item: inBrandItem } = await seedReview(w.tenantA.id, brandLoc.id);
    await runAutomation(reviewEvent(w.tenantA.id, inBrand, "review.created"), env);
    await runAutomation(reviewEvent(w.tenantA.id, here, "review.created"), env);
    expect((await runsOf(brandRule.body.id)).map((r) => r.outcome)).toEqual(["succeeded"]);
    expect((await item(inBrandItem.id)).tags).toEqual(["brand"]);
    await w.as("manager").patch(`/v1/automation-rules/${brandRule.body.id}`, { isActive: false });
  });

  it("runs a rule at most once per event, ignores inactive rules and other tenants' events", async () => {
    const { loc, rule } = await setup([{ type: "add_tags", config: { tags: ["once"] } }]);
    const { review } = await seedReview(w.tenantA.id, loc.id);
    const e = reviewEvent(w.tenantA.id, review);
    await runAutomation(e, env);
    expect(await runAutomation(e, env)).toEqual([]);
    expect(await runsOf(rule.id)).toHaveLength(1);
    await runAutomation(reviewEvent(w.tenantB.id, review), env);
    expect(await runsOf(rule.id)).toHaveLength(1);
    await w.as("manager").patch(`/v1/automation-rules/${rule.id}`, { isActive: false });
    await runAutomation(reviewEvent(w.tenantA.id, review), env);
    expect(await runsOf(rule.id)).toHaveLength(1);
  });

  it("never retriggers a rule with the events its own actions caused, and stops chains at the depth limit", async () => {
    const { loc, rule } = await setup([{ type: "assign_inbox", config: { userId: w.users.manager.id } }], {
      trigger: "inbox.assigned",
    });
    const { item: it0 } = await seedReview(w.tenantA.id, loc.id);
    const human = event(w.tenantA.id, "inbox.assigned", {
      inboxItemId: it0.id,
      type: "review",
      reviewId: it0.reviewId,
      feedbackId: null,
      locationId: loc.id,
      assignedToUserId: w.users.tenantUser.id,
    });
    await runAutomation(human, env);
    expect(await item(it0.id)).toMatchObject({ assignedToUserId: w.users.manager.id, status: "assigned" });
    const own = (await db().select().from(domainEvents).where(eq(domainEvents.type, "inbox.assigned"))).find(
      (x) => x.data.inboxItemId === it0.id && x.data.causedByRuleId === rule.id,
    )!;
    expect(own).toBeDefined();
    // feed the rule's own event back (the EVENTS consumer may already have done so in the background)
    await runAutomation(
      { id: own.id, type: "inbox.assigned", tenantId: own.tenantId, occurredAt: own.occurredAt, data: own.data },
      env,
    );
    const runs = await runsOf(rule.id);
    expect(runs.find((r) => r.eventId === human.id)!.outcome).toBe("succeeded");
    expect(runs.find((r) => r.eventId === own.id)).toMatchObject({
      outcome: "skipped",
      error: expect.stringContaining("caused by this rule"),
      actions: [],
    });
    expect(runs).toHaveLength(2);

    // another rule's chain that already went MAX_CHAIN_DEPTH deep triggers nothing more
    const deep = event(w.tenantA.id, "inbox.assigned", {
      inboxItemId: it0.id,
      type: "review",
      reviewId: it0.reviewId,
      feedbackId: null,
      locationId: loc.id,
      assignedToUserId: w.users.viewer.id,
      causedByRuleId: "rule_x",
      automationChain: ["rule_a", "rule_b", "rule_x"],
      automationDepth: MAX_CHAIN_DEPTH,
    });
    await runAutomation(deep, env);
    expect((await runsOf(rule.id)).find((r) => r.eventId === deep.id)).toMatchObject({
      outcome: "skipped",
      error: expect.stringContaining("chain depth"),
    });
    // a rule earlier in the chain is protected too
    const chained = event(w.tenantA.id, "inbox.assigned", {
      ...deep.data,
      causedByRuleId: "rule_x",
      automationChain: [rule.id, "rule_x"],
      automationDepth: 2,
    });
    await runAutomation(chained, env);
    expect((await runsOf(rule.id)).find((r) => r.eventId === chained.id)!.outcome).toBe("skipped");
    await w.as("manager").patch(`/v1/automation-rules/${rule.id}`, { isActive: false });
  });

  it("pages the run log newest first", async () => {
    const { loc, rule } = await setup([{ type: "add_tags", config: { tags: ["p"] } }]);
    const { review } = await seedReview(w.tenantA.id, loc.id);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const e = reviewEvent(w.tenantA.id, review);
      ids.push(e.id);
      await runAutomation(e, env);
    }
    const p1 = await w.as("viewer").get(`/v1/automation-rules/${rule.id}/runs?limit=2`);
    expect(p1.body.total).toBe(3);
    const p2 = await w
      .as("viewer")
      .get(`/v1/automation-rules/${rule.id}/runs?limit=2&cursor=${p1.body.pageInfo.endCursor}`);
    expect([...p1.body.data, ...p2.body.data].map((r: { eventId: string }) => r.eventId)).toEqual(ids.reverse());
    expect(p1.body.data[0]).toMatchObject({ ruleId: rule.id, eventType: "review.negative", outcome: "succeeded" });
  });

  it("runs rules end to end from an event committed by another module", async () => {
    const { loc, rule } = await setup([{ type: "add_tags", config: { tags: ["from-queue"] } }], {
      trigger: "review.created",
      conditions: [{ field: "rating", op: "eq", value: 1 }],
    });
    const res = await w.as("tenantUser").post("/v1/reviews/ingest", {
      locationId: loc.id,
      siteType: "google",
      rating: 1,
      text: "Awful",
      externalReviewId: `q-${Date.now()}`,
    });
    expect(res.status).toBe(201);
    // the consumer writes the run as "running" first and its outcome later: wait for the outcome
    const [run] = await pollUntil(
      () => runsOf(rule.id),
      (runs) => runs.length > 0 && runs.every((r) => r.outcome !== "running"),
    );
    expect(run).toMatchObject({ outcome: "succeeded", eventType: "review.created" });
    const it0 = await db()
      .select()
      .from(inboxItems)
      .where(and(eq(inboxItems.reviewId, res.body.id)))
      .get();
    expect(it0!.tags).toEqual(["from-queue"]);
  });
});

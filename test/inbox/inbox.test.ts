import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents, inboxItems, inboxNotes } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { ingest, newContact, newLocation, newSolicitation, submit } from "./helpers";

let w: World;
let locA: { id: string };
let locB: { id: string };
/** oldest first: review, feedback, review, feedback, review (locations alternate A, B) */
const items: { id: string; type: "review" | "feedback"; sourceId: string; locationId: string }[] = [];
let foreignItemId: string;

const pause = () => new Promise((r) => setTimeout(r, 3));
const itemFor = async (sourceId: string, type: "review" | "feedback") =>
  (await db()
    .select()
    .from(inboxItems)
    .where(type === "review" ? eq(inboxItems.reviewId, sourceId) : eq(inboxItems.feedbackId, sourceId))
    .get())!;

beforeAll(async () => {
  w = await createWorld();
  locA = await newLocation(w);
  locB = await newLocation(w);
  const contact = await newContact(w);
  for (let i = 0; i < 5; i++) {
    const locationId = i % 2 === 0 ? locA.id : locB.id;
    if (i % 2 === 0) {
      const r = await ingest(w, {
        locationId,
        siteType: "first_party",
        rating: 5 - i,
        text: `Review number ${i}: the staff were lovely and helpful.`,
      });
      items.push({ id: (await itemFor(r.id, "review")).id, type: "review", sourceId: r.id, locationId });
    } else {
      const s = await newSolicitation({ tenantId: w.tenantA.id, locationId, contactId: contact.id });
      const f = await submit(s.token, { rating: 2, text: `Feedback number ${i}: too slow.` });
      items.push({
        id: (await itemFor(f.body.feedbackId, "feedback")).id,
        type: "feedback",
        sourceId: f.body.feedbackId,
        locationId,
      });
    }
    await pause();
  }
  const locForeign = await newLocation(w, "tenantBAdmin");
  const foreign = await ingest(
    w,
    { locationId: locForeign.id, siteType: "google", externalReviewId: "b-1", rating: 1 },
    "tenantBAdmin",
  );
  foreignItemId = (await itemFor(foreign.id, "review")).id;
});

const newest = () => [...items].reverse();

describe("GET /v1/inbox", () => {
  it("lists reviews and feedback together, newest first, in the common shape", async () => {
    const res = await w.as("viewer").get("/v1/inbox");
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(5);
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual(newest().map((i) => i.id));
    const [, feedback, review] = res.body.data;
    expect(review).toMatchObject({
      type: "review",
      status: "new",
      locationId: locA.id,
      rating: 3,
      sentiment: "positive",
      excerpt: "Review number 2: the staff were lovely and helpful.",
      assignedToUserId: null,
      tags: [],
      escalatedAt: null,
      reviewId: items[2]!.sourceId,
      feedbackId: null,
    });
    expect(feedback).toMatchObject({
      type: "feedback",
      rating: 2,
      sentiment: "negative",
      excerpt: "Feedback number 3: too slow.",
      reviewId: null,
      feedbackId: items[3]!.sourceId,
    });
    expect(res.body.data.some((i: { id: string }) => i.id === foreignItemId)).toBe(false);
  });

  it("pages with the cursor without gaps or repeats", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await w.as("viewer").get(`/v1/inbox?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(5);
      seen.push(...res.body.data.map((i: { id: string }) => i.id));
      cursor = res.body.pageInfo.hasNextPage ? res.body.pageInfo.endCursor : null;
    } while (cursor);
    expect(seen).toEqual(newest().map((i) => i.id));
    expect((await w.as("viewer").get("/v1/inbox?cursor=garbage")).status).toBe(400);
  });

  it("filters by type, location, status and assignee", async () => {
    const ids = async (q: string) =>
      (await w.as("viewer").get(`/v1/inbox?${q}`)).body.data.map((i: { id: string }) => i.id);
    expect(await ids("type=feedback")).toEqual(
      newest()
        .filter((i) => i.type === "feedback")
        .map((i) => i.id),
    );
    expect(await ids("type=review")).toEqual(
      newest()
        .filter((i) => i.type === "review")
        .map((i) => i.id),
    );
    expect(await ids(`locationId=${locB.id}`)).toEqual(
      newest()
        .filter((i) => i.locationId === locB.id)
        .map((i) => i.id),
    );
    expect(await ids(`locationId=${locA.id}&type=review`)).toEqual([items[4]!.id, items[2]!.id, items[0]!.id]);
    await w.as("tenantUser").patch(`/v1/inbox/${items[0]!.id}`, { status: "ignored" });
    expect(await ids("status=ignored")).toEqual([items[0]!.id]);
    await w.as("tenantUser").post(`/v1/inbox/${items[1]!.id}/assign`, { userId: w.users.manager.id });
    expect(await ids(`assignedToUserId=${w.users.manager.id}`)).toEqual([items[1]!.id]);
    const bad = await w.as("viewer").get("/v1/inbox?status=escalated&type=tweet");
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["status", "type"]);
    // restore
    await w.as("tenantUser").patch(`/v1/inbox/${items[0]!.id}`, { status: "new" });
    await w.as("tenantUser").post(`/v1/inbox/${items[1]!.id}/assign`, { userId: null });
  });
});

describe("GET /v1/inbox/{id}", () => {
  it("returns a review item with its responses, notes and tags; by review id with ?type=review too", async () => {
    const it0 = items[0]!;
    await w.as("tenantUser").post(`/v1/reviews/${it0.sourceId}/responses`, { text: "Thank you!" });
    await w.as("tenantUser").post(`/v1/inbox/${it0.id}/notes`, { note: "Regular customer" });
    const res = await w.as("viewer").get(`/v1/inbox/${it0.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: it0.id,
      type: "review",
      review: { id: it0.sourceId, rating: 5 },
      feedback: null,
      notes: [{ note: "Regular customer", authorId: w.users.tenantUser.id, authorType: "user" }],
    });
    expect(res.body.responses).toMatchObject([{ text: "Thank you!", status: "draft" }]);
    const bySource = await w.as("viewer").get(`/v1/inbox/${it0.sourceId}?type=review`);
    expect(bySource.body.id).toBe(it0.id);
    expect((await w.as("viewer").get(`/v1/inbox/${it0.id}?type=feedback`)).status).toBe(404);
  });

  it("returns a feedback item with the submission", async () => {
    const it1 = items[1]!;
    const res = await w.as("viewer").get(`/v1/inbox/${it1.sourceId}?type=feedback`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: it1.id,
      review: null,
      responses: [],
      feedback: { id: it1.sourceId, rating: 2, text: "Feedback number 1: too slow." },
    });
  });

  it("is 404 for another tenant's item", async () => {
    expect((await w.as("viewer").get(`/v1/inbox/${foreignItemId}`)).status).toBe(404);
    expect((await w.as("tenantBAdmin").get(`/v1/inbox/${foreignItemId}`)).status).toBe(200);
  });
});

describe("inbox actions", () => {
  it("PATCH moves the status along the table and audits it; an illegal move is 409", async () => {
    const id = items[2]!.id;
    const ok = await w.as("tenantUser").patch(`/v1/inbox/${id}`, { status: "in_progress" });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true });
    expect((await w.as("viewer").get(`/v1/inbox/${id}`)).body.status).toBe("in_progress");
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, "inbox.status_changed")))
      .get();
    expect(audit).toMatchObject({
      actorId: w.users.tenantUser.id,
      previousState: { status: "new" },
      nextState: { status: "in_progress" },
    });

    expect((await w.as("tenantUser").patch(`/v1/inbox/${id}`, { status: "resolved" })).status).toBe(200);
    const illegal = await w.as("tenantUser").patch(`/v1/inbox/${id}`, { status: "ignored" });
    expect(illegal.status).toBe(409);
    expect(illegal.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from: "resolved", to: "ignored" } });
    const noAssignee = await w.as("tenantUser").patch(`/v1/inbox/${id}`, { status: "assigned" });
    expect(noAssignee.status).toBe(409);
    expect((await w.as("tenantUser").patch(`/v1/inbox/${id}`, { status: "in_progress" })).status).toBe(200);
    expect((await w.as("tenantUser").patch(`/v1/inbox/${id}`, { status: "assigned" })).status).toBe(400);
    expect((await w.as("tenantUser").patch(`/v1/inbox/${id}`, { status: "done" })).status).toBe(400);
  });

  it("assign sets the assignee, moves new to assigned, emits inbox.assigned; the user must belong to the tenant", async () => {
    const id = items[3]!.id;
    const res = await w
      .as("tenantUser")
      .post(`/v1/inbox/${id}/assign`, { userId: w.users.manager.id, type: "feedback" });
    expect(res.status).toBe(200);
    const after = (await w.as("viewer").get(`/v1/inbox/${id}`)).body;
    expect(after).toMatchObject({ status: "assigned", assignedToUserId: w.users.manager.id });
    const event = (await db().select().from(domainEvents).where(eq(domainEvents.type, "inbox.assigned"))).find(
      (e) => e.data.inboxItemId === id,
    );
    expect(event!.data).toMatchObject({
      assignedToUserId: w.users.manager.id,
      type: "feedback",
      feedbackId: items[3]!.sourceId,
    });

    for (const userId of [w.users.tenantBAdmin.id, w.users.agencyAdmin.id, "nobody"]) {
      const bad = await w.as("tenantUser").post(`/v1/inbox/${id}/assign`, { userId });
      expect(bad.status).toBe(400);
      expect(bad.body.details.issues[0].path).toBe("userId");
    }
    expect((await w.as("tenantUser").post(`/v1/inbox/${id}/assign`, { userId: null })).status).toBe(200);
    expect((await w.as("viewer").get(`/v1/inbox/${id}`)).body).toMatchObject({ status: "new", assignedToUserId: null });
  });

  it("notes keep author and time, oldest first", async () => {
    const id = items[4]!.id;
    await w.as("tenantUser").post(`/v1/inbox/${id}/notes`, { note: "Called the customer" });
    const second = await w.as("manager").post(`/v1/inbox/${id}/notes`, { note: "Offered a refund" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ success: true, noteId: expect.any(String) });
    const notes = (await w.as("viewer").get(`/v1/inbox/${id}`)).body.notes;
    expect(notes.map((n: { note: string; authorId: string }) => [n.note, n.authorId])).toEqual([
      ["Called the customer", w.users.tenantUser.id],
      ["Offered a refund", w.users.manager.id],
    ]);
    expect(Date.parse(notes[0].createdAt)).toBeLessThanOrEqual(Date.parse(notes[1].createdAt));
    expect((await w.as("tenantUser").post(`/v1/inbox/${id}/notes`, { note: "  " })).status).toBe(400);
    expect(await db().select().from(inboxNotes).where(eq(inboxNotes.inboxItemId, id))).toHaveLength(2);
  });

  it("tags replace the item's tags, deduplicated", async () => {
    const id = items[4]!.id;
    const res = await w
      .as("tenantUser")
      .post(`/v1/inbox/${id}/tags`, { tags: ["VIP", " refund ", "vip", "Refund", "billing"] });
    expect(res.status).toBe(200);
    expect(res.body.tags).toEqual(["VIP", "refund", "billing"]);
    expect((await w.as("viewer").get(`/v1/inbox/${id}`)).body.tags).toEqual(["VIP", "refund", "billing"]);
    await w.as("tenantUser").post(`/v1/inbox/${id}/tags`, { tags: ["billing"] });
    expect((await w.as("viewer").get(`/v1/inbox/${id}`)).body.tags).toEqual(["billing"]);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.resourceId, id), eq(auditEvents.action, "inbox.tagged")));
    expect(audit.map((a) => a.nextState)).toEqual([{ tags: ["VIP", "refund", "billing"] }, { tags: ["billing"] }]);
    expect(
      (await w.as("tenantUser").post(`/v1/inbox/${id}/tags`, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }))
        .status,
    ).toBe(400);
  });

  it("escalate records reason, time and who", async () => {
    const id = items[0]!.id;
    const res = await w.as("tenantUser").post(`/v1/inbox/${id}/escalate`, { reason: "Threatens legal action" });
    expect(res.status).toBe(200);
    const after = (await w.as("viewer").get(`/v1/inbox/${id}`)).body;
    expect(after).toMatchObject({
      escalationReason: "Threatens legal action",
      escalatedBy: w.users.tenantUser.id,
      status: "new",
    });
    expect(Date.now() - Date.parse(after.escalatedAt)).toBeLessThan(60_000);
    expect((await w.as("tenantUser").post(`/v1/inbox/${id}/escalate`)).status).toBe(200);
    expect((await w.as("viewer").get(`/v1/inbox/${id}`)).body.escalationReason).toBe("Escalated by hand");
  });

  it("publishing a response marks the review's item responded", async () => {
    const it0 = items[0]!;
    const draft = (
      await w.as("tenantUser").post(`/v1/reviews/${it0.sourceId}/responses`, { text: "Thanks for the kind words!" })
    ).body;
    await w.as("tenantUser").post(`/v1/responses/${draft.id}/submit`);
    await w.as("manager").post(`/v1/responses/${draft.id}/approve`);
    expect((await w.as("manager").post(`/v1/responses/${draft.id}/publish`)).status).toBe(200);
    const after = (await w.as("viewer").get(`/v1/inbox/${it0.id}`)).body;
    expect(after.status).toBe("responded");
    expect(after.responses.map((r: { status: string }) => r.status)).toContain("published");
  });

  it("viewers cannot write; another tenant's item is 404 for every action", async () => {
    const id = items[1]!.id;
    expect((await w.as("viewer").patch(`/v1/inbox/${id}`, { status: "resolved" })).status).toBe(403);
    expect((await w.as("viewer").post(`/v1/inbox/${id}/notes`, { note: "x" })).status).toBe(403);
    expect((await w.as("viewer").post("/v1/inbox/bulk-status", { itemIds: [id], status: "resolved" })).status).toBe(
      403,
    );
    const a = w.as("tenantUser");
    for (const res of [
      await a.patch(`/v1/inbox/${foreignItemId}`, { status: "resolved" }),
      await a.post(`/v1/inbox/${foreignItemId}/assign`, { userId: w.users.manager.id }),
      await a.post(`/v1/inbox/${foreignItemId}/notes`, { note: "x" }),
      await a.post(`/v1/inbox/${foreignItemId}/tags`, { tags: ["x"] }),
      await a.post(`/v1/inbox/${foreignItemId}/escalate`, {}),
    ])
      expect(res.status).toBe(404);
  });
});

describe("POST /v1/inbox/bulk-status", () => {
  const statuses = async () =>
    Object.fromEntries(
      (await w.as("viewer").get("/v1/inbox")).body.data.map((i: { id: string; status: string }) => [i.id, i.status]),
    );

  it("is all or nothing: one unknown or foreign id changes nothing (400)", async () => {
    const before = await statuses();
    const res = await w
      .as("tenantUser")
      .post("/v1/inbox/bulk-status", { itemIds: [items[1]!.id, foreignItemId, items[3]!.id], status: "resolved" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([{ path: "itemIds.1", message: `No inbox item ${foreignItemId}` }]);
    expect(await statuses()).toEqual(before);
  });

  it("is all or nothing: one illegal move changes nothing (409)", async () => {
    const before = await statuses();
    expect(before[items[2]!.id]).toBe("in_progress");
    await w.as("tenantUser").patch(`/v1/inbox/${items[2]!.id}`, { status: "resolved" });
    const res = await w
      .as("tenantUser")
      .post("/v1/inbox/bulk-status", { itemIds: [items[1]!.id, items[2]!.id, items[3]!.id], status: "ignored" });
    expect(res.status).toBe(409);
    expect(res.body.details).toMatchObject({ from: "resolved", to: "ignored", itemId: items[2]!.id });
    expect(await statuses()).toEqual({ ...before, [items[2]!.id]: "resolved" });
  });

  it("moves every item in one go and writes one audit row", async () => {
    const ids = [items[1]!.id, items[3]!.id, items[4]!.id];
    const res = await w.as("tenantUser").post("/v1/inbox/bulk-status", { itemIds: ids, status: "resolved" });
    expect(res.status).toBe(200);
    const after = await statuses();
    expect(ids.map((id) => after[id])).toEqual(["resolved", "resolved", "resolved"]);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "inbox.bulk_status_changed"))
      .get();
    expect(audit!.nextState).toMatchObject({ status: "resolved", itemIds: expect.arrayContaining(ids) });
  });

  it("refuses more than 200 ids", async () => {
    const res = await w
      .as("tenantUser")
      .post("/v1/inbox/bulk-status", { itemIds: Array.from({ length: 201 }, (_, i) => `id${i}`), status: "resolved" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("itemIds");
  });

  it("a concurrent change between read and write aborts the whole batch (409 CONFLICT)", async () => {
    const { bulkSetInboxStatus } = await import("../../src/modules/inbox/actions");
    const { ctxFor } = await import("../reviews/helpers");
    const base = ctxFor(w.tenantA.id, w.users.tenantUser.id);
    // the drizzle instance is shared per D1 binding: patch a private view of it, not everyone's
    const ctx = { ...base, db: Object.create(base.db) as typeof base.db };
    const realBatch = ctx.db.batch.bind(ctx.db);
    // another writer moves item 0 after our read, just before our batch runs
    (ctx.db as { batch: unknown }).batch = async (stmts: never) => {
      (ctx.db as { batch: unknown }).batch = realBatch;
      await db().update(inboxItems).set({ status: "ignored" }).where(eq(inboxItems.id, items[0]!.id));
      return realBatch(stmts);
    };
    const before = await statuses();
    await expect(
      bulkSetInboxStatus(ctx, { itemIds: [items[0]!.id, items[2]!.id], status: "in_progress" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    const after = await statuses();
    expect(after[items[2]!.id]).toBe(before[items[2]!.id]);
    expect(after[items[0]!.id]).toBe("ignored");
  });
});

import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, domainEvents, inboxItems } from "../../src/db/schema";
import { draftResponse } from "../../src/modules/agents/reply-drafting";
import { draftReply } from "../../src/modules/reviews/drafting/engine";
import { RESPONSE_TRANSITIONS, type ResponseAction } from "../../src/modules/reviews/response-states";
import { findReviewRow } from "../../src/modules/reviews/service";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { ctxFor, ingest, newLocation } from "./helpers";

let w: World;
let firstParty: { id: string };
let googleReview: { id: string };
let loc: { id: string; brandId: string };

beforeAll(async () => {
  w = await createWorld();
  loc = await newLocation(w, "manager", { phone: "+1 555 0100" });
  await w
    .as("tenantAdmin")
    .patch(`/v1/brands/${loc.brandId}`, { name: "Bright Smiles", brandVoice: "professional", brandTone: "empathetic" });
  firstParty = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 5, text: "Great team" });
  googleReview = await ingest(w, {
    locationId: loc.id,
    siteType: "google",
    externalReviewId: "g-77",
    rating: 1,
    authorName: "Maria Gomez",
    text: "Waited an hour and the receptionist was rude",
  });
});

type State = "draft" | "submitted" | "approved" | "rejected" | "published";
const ACTIONS: ResponseAction[] = ["edit", "submit", "approve", "reject", "publish"];
const STATES: State[] = ["draft", "submitted", "approved", "rejected", "published"];

const act = (id: string, action: ResponseAction) =>
  action === "edit"
    ? w.as("manager").patch(`/v1/responses/${id}`, { text: "Edited text" })
    : w.as("manager").post(`/v1/responses/${id}/${action}`, action === "reject" ? { reason: "Too short" } : undefined);

/** A response to the first-party review brought into the given state through the API. */
async function responseIn(state: State): Promise<string> {
  const created = await w.as("tenantUser").post(`/v1/reviews/${firstParty.id}/responses`, { text: "Thank you!" });
  expect(created.status).toBe(201);
  const path: Record<State, ResponseAction[]> = {
    draft: [],
    submitted: ["submit"],
    approved: ["submit", "approve"],
    rejected: ["submit", "reject"],
    published: ["submit", "approve", "publish"],
  };
  for (const a of path[state]) expect((await act(created.body.id, a)).status).toBe(200);
  return created.body.id;
}

// the moves a person makes through the routes (the moderation moves are the site's: publish.test.ts)
const TARGET: Partial<Record<ResponseAction, State>> = {
  edit: "draft",
  submit: "submitted",
  approve: "approved",
  reject: "rejected",
  publish: "published",
};

describe("response state machine", () => {
  for (const from of STATES) {
    for (const action of ACTIONS) {
      const to = RESPONSE_TRANSITIONS[action][from];
      it(`${from} --${action}--> ${to ?? `409 (to ${TARGET[action]})`}`, async () => {
        const id = await responseIn(from);
        const res = await act(id, action);
        if (to) {
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.status).toBe(to);
        } else {
          expect(res.status).toBe(409);
          expect(res.body).toMatchObject({ code: "INVALID_TRANSITION", details: { from, to: TARGET[action] } });
        }
      });
    }
  }

  it("records the rejection reason, and editing a rejected response clears it and returns to draft", async () => {
    const id = await responseIn("submitted");
    const rejected = await w.as("manager").post(`/v1/responses/${id}/reject`, { reason: "Mention the parking" });
    expect(rejected.body).toMatchObject({ status: "rejected", rejectionReason: "Mention the parking" });
    const edited = await w
      .as("tenantUser")
      .patch(`/v1/responses/${id}`, { text: "Thanks! Parking is behind the building." });
    expect(edited.body).toMatchObject({
      status: "draft",
      rejectionReason: null,
      text: "Thanks! Parking is behind the building.",
    });
    const reject2 = await w
      .as("manager")
      .post(
        `/v1/responses/${(await w.as("tenantUser").post(`/v1/reviews/${firstParty.id}/responses`, { text: "x" })).body.id}/submit`,
      );
    expect(reject2.body.status).toBe("submitted");
    const noReason = await w.as("manager").post(`/v1/responses/${reject2.body.id}/reject`);
    expect(noReason.body).toMatchObject({ status: "rejected", rejectionReason: null });
  });

  it("audits every move and emits response.submitted, .approved and .published", async () => {
    const id = await responseIn("published");
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.resourceId, id));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "response.approved",
      "response.created",
      "response.published",
      "response.submitted",
    ]);
    const events = (await db().select().from(domainEvents))
      .filter((e) => e.data.responseId === id)
      .map((e) => e.type)
      .sort();
    expect(events).toEqual(["response.approved", "response.published", "response.submitted"]);
  });

  it("publishing a first-party review's response is local: review and inbox item become responded", async () => {
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 4, text: "Good" });
    const created = await w.as("tenantUser").post(`/v1/reviews/${review.id}/responses`, { text: "Thanks!" });
    await act(created.body.id, "submit");
    await act(created.body.id, "approve");
    const published = await act(created.body.id, "publish");
    expect(published.body).toMatchObject({ status: "published", publishedVia: "local" });
    expect(published.body.publishedAt).toBeTruthy();
    expect((await w.as("viewer").get(`/v1/reviews/${review.id}`)).body.status).toBe("responded");
    const [item] = await db().select().from(inboxItems).where(eq(inboxItems.reviewId, review.id));
    expect(item!.status).toBe("responded");
  });
});

describe("roles", () => {
  it("viewer cannot draft, edit or submit; tenant_user cannot approve, reject or publish", async () => {
    expect((await w.as("viewer").post(`/v1/reviews/${firstParty.id}/responses`, { text: "Hi" })).status).toBe(403);
    const id = await responseIn("draft");
    expect((await w.as("viewer").patch(`/v1/responses/${id}`, { text: "x" })).status).toBe(403);
    expect((await w.as("viewer").post(`/v1/responses/${id}/submit`)).status).toBe(403);
    const submitted = await responseIn("submitted");
    for (const a of ["approve", "reject"]) {
      const res = await w.as("tenantUser").post(`/v1/responses/${submitted}/${a}`);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
    const approved = await responseIn("approved");
    expect((await w.as("tenantUser").post(`/v1/responses/${approved}/publish`)).status).toBe(403);
    // manager and tenant_admin may decide
    expect((await w.as("tenantAdmin").post(`/v1/responses/${submitted}/approve`)).body.status).toBe("approved");
  });
});

describe("drafting and listing", () => {
  it("validates: text required unless useAi, assignee must belong to the tenant", async () => {
    const none = await w.as("tenantUser").post(`/v1/reviews/${firstParty.id}/responses`, {});
    expect(none.status).toBe(400);
    expect(none.body.details.issues[0].path).toBe("text");
    const foreign = await w
      .as("tenantUser")
      .post(`/v1/reviews/${firstParty.id}/responses`, { text: "Hi", assignedToUserId: w.users.tenantBAdmin.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details.issues).toEqual([{ path: "assignedToUserId", message: "Not a user of this tenant" }]);
    const ok = await w
      .as("tenantUser")
      .post(`/v1/reviews/${firstParty.id}/responses`, { text: "Hi", assignedToUserId: w.users.manager.id });
    expect(ok.body).toMatchObject({
      assignedToUserId: w.users.manager.id,
      aiGenerated: false,
      status: "draft",
      reviewId: firstParty.id,
    });
  });

  it("useAi drafts offline from the review and the brand's voice and tone", async () => {
    const res = await w.as("tenantUser").post(`/v1/reviews/${googleReview.id}/responses`, { useAi: true });
    expect(res.status).toBe(201);
    expect(res.body.aiGenerated).toBe(true);
    const text: string = res.body.text;
    expect(text.startsWith("Dear Maria,")).toBe(true); // professional voice, first name
    expect(text).toContain("We understand how frustrating that must have been."); // empathetic tone
    expect(text).toContain("our team and the wait time"); // topics
    expect(text).toContain("+1 555 0100"); // location contact for a negative review
    expect(text).toContain("The Bright Smiles team");
    // deterministic: the same review drafts the same text
    const again = await w
      .as("tenantUser")
      .post(`/v1/reviews/${googleReview.id}/responses`, { useAi: true, text: "ignored" });
    expect(again.body.text).toBe(text);
    // editing the AI text makes it a person's text
    const edited = await w.as("tenantUser").patch(`/v1/responses/${res.body.id}`, { text: `${text} See you soon.` });
    expect(edited.body.aiGenerated).toBe(false);
  });

  it("drafts in the review's language and voice", () => {
    const base = {
      reviewId: "r1",
      topics: ["staff"],
      contact: null,
      brand: { name: "Casa", brandVoice: "friendly", brandTone: "warm" },
    };
    const es = draftReply({ ...base, rating: 5, sentiment: "positive", authorName: "Lucía", language: "es" });
    expect(es).toContain("Hola Lucía:");
    expect(es).toContain("nuestro equipo");
    const casual = draftReply({
      ...base,
      brand: { ...base.brand, brandVoice: "casual" },
      rating: 3,
      sentiment: "neutral",
      authorName: null,
      language: null,
    });
    expect(casual.startsWith("Hey there!")).toBe(true);
    expect(casual).toContain("five-star");
  });

  it("uses Workers AI through the agent runtime when the AI binding exists, and falls back to the built-in draft when it fails", async () => {
    const ctx = ctxFor(w.tenantA.id, w.users.tenantUser.id);
    const review = await findReviewRow(ctx, googleReview.id);
    const seen: { model: string; input: Record<string, unknown> }[] = [];
    const answers = [
      { response: "" },
      { response: { text: "  Dear Maria, we are sorry.  ", language: "en", topicsAddressed: [], evidence: [] } },
    ];
    const ai = {
      run: async (model: string, input: Record<string, unknown>) => {
        seen.push({ model, input });
        return answers.shift();
      },
    };
    expect((await draftResponse({ ...ctx, env: { ...ctx.env, AI: ai as never } }, review)).trim()).toBe(
      "Dear Maria, we are sorry.",
    );
    expect(seen[0]).toMatchObject({ model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast" });
    expect(seen[1]!.input.response_format).toMatchObject({ type: "json_schema" });
    const broken = { run: async () => Promise.reject(new Error("quota")) };
    expect(await draftResponse({ ...ctx, env: { ...ctx.env, AI: broken as never } }, review)).toContain("Dear Maria,");
  });

  it("lists a review's responses and the approval queue (submitted only, oldest first)", async () => {
    const review = await ingest(w, { locationId: loc.id, siteType: "first_party", rating: 3 });
    const a = (await w.as("tenantUser").post(`/v1/reviews/${review.id}/responses`, { text: "A" })).body.id;
    const b = (await w.as("tenantUser").post(`/v1/reviews/${review.id}/responses`, { text: "B" })).body.id;
    const list = await w.as("viewer").get(`/v1/reviews/${review.id}/responses`);
    expect(list.body.map((r: { id: string }) => r.id)).toEqual([a, b]);
    await act(b, "submit");
    await act(a, "submit");
    const queue = await w.as("viewer").get("/v1/responses/approval-queue?limit=200");
    const ids = queue.body.map((r: { id: string }) => r.id);
    expect(ids.indexOf(b)).toBeLessThan(ids.indexOf(a));
    expect(queue.body.every((r: { status: string }) => r.status === "submitted")).toBe(true);
  });
});

describe("the approval queue with the reviews (include=review)", () => {
  it("gives each reply the review it answers; an API key without read:reviews gets null there", async () => {
    const review = await ingest(w, {
      locationId: loc.id,
      siteType: "google",
      rating: 2,
      text: "Waited an hour",
      authorName: "Tom R.",
    });
    const reply = (await w.as("tenantUser").post(`/v1/reviews/${review.id}/responses`, { text: "Sorry, Tom" })).body;
    await act(reply.id, "submit");
    const find = (body: { id: string }[]) => body.find((r) => r.id === reply.id) as Record<string, unknown>;
    const plain = await w.as("viewer").get("/v1/responses/approval-queue?limit=200");
    expect(find(plain.body)).not.toHaveProperty("review");
    const withReviews = await w.as("viewer").get("/v1/responses/approval-queue?limit=200&include=review");
    expect(withReviews.status).toBe(200);
    expect(find(withReviews.body).review).toMatchObject({
      id: review.id,
      rating: 2,
      text: "Waited an hour",
      authorName: "Tom R.",
      siteType: "google",
      locationName: (await w.as("viewer").get(`/v1/locations/${loc.id}`)).body.name,
    });
    // a key that may read approvals but not reviews: the replies, and why the reviews are missing (null)
    const minted = await w
      .as("tenantAdmin")
      .post("/v1/api-keys", { name: "Approvals only", scopes: ["read:approvals"] });
    expect(minted.status).toBe(201);
    const byKey = await request("GET", "/v1/responses/approval-queue?limit=200&include=review", {
      token: minted.body.key,
      tenantId: w.tenantA.id,
    });
    expect(byKey.status).toBe(200);
    expect(find(byKey.body)).toMatchObject({ id: reply.id, review: null });
    expect((await w.as("viewer").get("/v1/responses/approval-queue?include=everything")).status).toBe(400);
  });
});

describe("tenant isolation", () => {
  it("another tenant's review and response ids are 404", async () => {
    const id = await responseIn("submitted");
    const b = w.as("tenantBAdmin");
    expect((await b.get(`/v1/reviews/${firstParty.id}/responses`)).status).toBe(404);
    expect((await b.post(`/v1/reviews/${firstParty.id}/responses`, { text: "x" })).status).toBe(404);
    expect((await b.patch(`/v1/responses/${id}`, { text: "x" })).status).toBe(404);
    for (const a of ["submit", "approve", "reject", "publish"])
      expect((await b.post(`/v1/responses/${id}/${a}`)).status).toBe(404);
    expect((await b.get("/v1/responses/approval-queue")).body).toEqual([]);
  });
});

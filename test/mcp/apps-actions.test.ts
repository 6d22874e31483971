// The tools behind the MCP Apps cards' buttons (mcp/apps/cards.ts): the reply approval steps as MCP
// tools derived from their REST operations (reviews/operations.ts). write:responses admits them, each
// asks the user's confirmation first, and another tenant's reply is not found.
import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { newLocation } from "../reviews/helpers";
import { callConfirmed, connect, mintTestKey, structured } from "./helpers";

let w: World;
let reviewId = "";

beforeAll(async () => {
  w = await createWorld();
  const loc = await newLocation(w);
  const review = await w.as("manager").post("/v1/reviews/ingest", {
    locationId: loc.id,
    siteType: "google",
    rating: 2,
    text: "Slow service",
    externalReviewId: "g-apps-1",
  });
  reviewId = review.body.id;
});

const newDraft = async (text = "Sorry to hear that") =>
  (await w.as("tenantUser").post(`/v1/reviews/${reviewId}/responses`, { text })).body.id as string;
const submit = async (id: string) =>
  expect((await w.as("tenantUser").post(`/v1/responses/${id}/submit`)).body.status).toBe("submitted");

describe("reply approval tools (the approval card's buttons)", () => {
  it("are listed for write:responses only, and each asks for confirmation", async () => {
    const reader = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews"]).token });
    const readerTools = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(readerTools.filter((n) => n.startsWith("response."))).toEqual([]);
    const writer = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews", "write:responses"]).token });
    const tools = (await writer.client.listTools()).tools.filter((t) => t.name.startsWith("response."));
    expect(tools.map((t) => t.name)).toEqual([
      "response.approve",
      "response.mark-published",
      "response.reject",
      "response.update",
    ]);
    const id = await newDraft();
    await submit(id);
    const unconfirmed = await writer.client.callTool({ name: "response.approve", arguments: { responseId: id } });
    expect(unconfirmed.isError).toBe(true);
    expect(JSON.parse((unconfirmed.content as { text: string }[])[0]!.text).confirmation.question).toBe(
      `Approve reply ${id} so it can be published?`,
    );
    expect(
      (await w.as("viewer").get(`/v1/reviews/${reviewId}/responses`)).body.find((r: any) => r.id === id).status,
    ).toBe("submitted");
  });

  it("edit, reject with a reason, edit back to draft, submit, approve: the states move as over REST", async () => {
    const { client } = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews", "write:responses"]).token });
    const id = await newDraft();
    const edited = structured(
      await callConfirmed(client, "response.update", { responseId: id, text: "We are sorry, it is fixed now." }),
    );
    expect(edited).toMatchObject({ id, status: "draft", text: "We are sorry, it is fixed now." });
    await submit(id);
    const rejected = structured(
      await callConfirmed(client, "response.reject", { responseId: id, reason: "Too short" }),
    );
    expect(rejected).toMatchObject({ id, status: "rejected", rejectionReason: "Too short" });
    const redrafted = structured(
      await callConfirmed(client, "response.update", { responseId: id, text: "Longer reply." }),
    );
    expect(redrafted).toMatchObject({ id, status: "draft", text: "Longer reply." });
    await submit(id);
    const approved = structured(await callConfirmed(client, "response.approve", { responseId: id }));
    expect(approved).toMatchObject({ id, status: "approved", text: "Longer reply." });
    // approving twice is the REST 409, as a tool error
    const again = await callConfirmed(client, "response.approve", { responseId: id });
    expect(again.isError).toBe(true);
    expect(JSON.parse((again.content as { text: string }[])[0]!.text).code).toBe("INVALID_TRANSITION");
  });

  it("another tenant's reply is not found", async () => {
    const id = await newDraft();
    await submit(id);
    const other = await connect({ token: mintTestKey(w.tenantB.id, ["read:reviews", "write:responses"]).token });
    const refused = await callConfirmed(other.client, "response.approve", { responseId: id });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]!.text).code).toBe("NOT_FOUND");
    expect(
      (await w.as("viewer").get(`/v1/reviews/${reviewId}/responses`)).body.find((r: any) => r.id === id).status,
    ).toBe("submitted");
  });
});

describe("inbox triage tools (the triage card's buttons)", () => {
  const inboxItem = async () => {
    const page = await w.as("manager").get(`/v1/inbox?type=review&limit=1`);
    return page.body.data[0] as { id: string; status: string };
  };

  it("assign, tag and close an item through write:inbox, each confirmed; the item moves as over REST", async () => {
    const { client } = await connect({
      token: mintTestKey(w.tenantA.id, ["read:reviews", "read:feedback", "write:inbox"]).token,
    });
    const item = await inboxItem();
    const unconfirmed = await client.callTool({
      name: "inbox.assign",
      arguments: { itemId: item.id, type: "review", userId: w.users.tenantUser.id },
    });
    expect(unconfirmed.isError).toBe(true);
    expect((await w.as("viewer").get(`/v1/inbox/${item.id}`)).body.assignedToUserId).toBeNull();
    const assigned = await callConfirmed(client, "inbox.assign", {
      itemId: item.id,
      type: "review",
      userId: w.users.tenantUser.id,
    });
    expect(structured(assigned)).toEqual({ success: true });
    const tagged = await callConfirmed(client, "inbox.set-tags", {
      itemId: item.id,
      type: "review",
      tags: ["urgent", " VIP ", "vip"],
    });
    expect(structured(tagged)).toEqual({ success: true, tags: ["urgent", "VIP"] });
    const closed = await callConfirmed(client, "inbox.set-status", { itemIds: [item.id], status: "resolved" });
    expect(structured(closed)).toEqual({ success: true });
    const after = (await w.as("viewer").get(`/v1/inbox/${item.id}`)).body;
    expect(after).toMatchObject({
      status: "resolved",
      assignedToUserId: w.users.tenantUser.id,
      tags: ["urgent", "VIP"],
    });
  });

  it("a key acts only on the kinds of item it can read; write:inbox alone lists no triage tool to a reader", async () => {
    const item = await inboxItem();
    const feedbackOnly = await connect({ token: mintTestKey(w.tenantA.id, ["read:feedback", "write:inbox"]).token });
    const refused = await callConfirmed(feedbackOnly.client, "inbox.set-tags", {
      itemId: item.id,
      type: "review",
      tags: ["x"],
    });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]!.text).code).toBe("FORBIDDEN");
    const closeRefused = await callConfirmed(feedbackOnly.client, "inbox.set-status", {
      itemIds: [item.id],
      status: "ignored",
    });
    expect(closeRefused.isError).toBe(true);
    const reader = await connect({ token: mintTestKey(w.tenantA.id, ["read:reviews"]).token });
    expect((await reader.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("inbox."))).toEqual([
      "inbox.get",
      "inbox.list",
    ]);
    // another tenant's item is not found
    const other = await connect({
      token: mintTestKey(w.tenantB.id, ["read:reviews", "read:feedback", "write:inbox"]).token,
    });
    const notFound = await callConfirmed(other.client, "inbox.set-tags", {
      itemId: item.id,
      type: "review",
      tags: ["x"],
    });
    expect(JSON.parse((notFound.content as { text: string }[])[0]!.text).code).toBe("NOT_FOUND");
    expect((await w.as("viewer").get(`/v1/inbox/${item.id}`)).body.tags).toEqual(["urgent", "VIP"]);
  });
});

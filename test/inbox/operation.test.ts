import { beforeAll, describe, expect, it } from "vitest";
import { client } from "../helpers/http";
import { createWorld, type World } from "../helpers/seed";
import { ingest, newContact, newLocation, newSolicitation, submit } from "./helpers";

// GET /v1/inbox and the MCP tool inbox.list are one operation (src/modules/inbox/operations.ts): an
// API key sees the kinds of item its scopes cover over REST exactly as over MCP.

let w: World;

async function apiKey(scopes: string[]) {
  const res = await w.as("tenantAdmin").post("/v1/api-keys", { name: `inbox ${scopes.join(" ")}`, scopes });
  expect(res.status).toBe(201);
  return client(res.body.key as string, w.tenantA.id);
}

beforeAll(async () => {
  w = await createWorld();
  const loc = await newLocation(w);
  await ingest(w, {
    locationId: loc.id,
    siteType: "first_party",
    rating: 4,
    text: "Friendly staff and quick service overall.",
  });
  const contact = await newContact(w);
  const s = await newSolicitation({ tenantId: w.tenantA.id, locationId: loc.id, contactId: contact.id });
  expect((await submit(s.token, { rating: 2, text: "Waited too long at the desk." })).status).toBeLessThan(300);
});

describe("GET /v1/inbox by an API key", () => {
  it("a read:feedback key lists feedback items only; asking for reviews is 403", async () => {
    const feedbackOnly = await apiKey(["read:feedback"]);
    const page = await feedbackOnly.get("/v1/inbox");
    expect(page.status).toBe(200);
    expect(page.body.data.map((i: { type: string }) => i.type)).toEqual(["feedback"]);
    expect(page.body.total).toBe(1);
    const reviews = await feedbackOnly.get("/v1/inbox?type=review");
    expect(reviews.status).toBe(403);
    expect(reviews.body.code).toBe("FORBIDDEN");
  });

  it("a key with both scopes, and a signed-in user, list both kinds", async () => {
    const both = await apiKey(["read:reviews", "read:feedback"]);
    const byKey = await both.get("/v1/inbox");
    expect(byKey.body.data.map((i: { type: string }) => i.type).sort()).toEqual(["feedback", "review"]);
    const byUser = await w.as("viewer").get("/v1/inbox");
    expect(byUser.body.data.map((i: { type: string }) => i.type).sort()).toEqual(["feedback", "review"]);
  });
});

describe("GET /v1/inbox/{id} by an API key", () => {
  it("an item of a kind the key cannot read is as absent as another tenant's (404), with or without ?type", async () => {
    const items = (await w.as("viewer").get("/v1/inbox")).body.data as { id: string; type: string }[];
    const review = items.find((i) => i.type === "review")!;
    const feedback = items.find((i) => i.type === "feedback")!;
    const feedbackOnly = await apiKey(["read:feedback"]);
    for (const path of [`/v1/inbox/${review.id}`, `/v1/inbox/${review.id}?type=review`]) {
      const res = await feedbackOnly.get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.stringify(res.body), path).not.toContain("Friendly staff");
    }
    expect((await feedbackOnly.get(`/v1/inbox/${feedback.id}`)).status).toBe(200);
    const reviewsOnly = await apiKey(["read:reviews"]);
    expect((await reviewsOnly.get(`/v1/inbox/${feedback.id}`)).status).toBe(404);
    expect((await reviewsOnly.get(`/v1/inbox/${review.id}`)).status).toBe(200);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";

// GET /v1/contacts and the MCP tool contact.list are one operation (src/modules/contacts/operations.ts):
// REST takes the tool's filters (isSuppressed, hasEmail, hasPhone) and answers its consent state too.

let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await createWorld();
  const mk = async (body: Record<string, unknown>) =>
    (await w.as("manager").post("/v1/contacts", body)).body.id as string;
  ids.ann = await mk({ email: "ann@example.com", firstName: "Ann" });
  ids.bob = await mk({ phone: "+14155550101", firstName: "Bob" });
  ids.cy = await mk({ email: "cy@example.com", phone: "+14155550102", firstName: "Cy" });
  expect(
    (await w.as("manager").post(`/v1/contacts/${ids.ann}/consent`, { channel: "email", source: "checkout form" }))
      .status,
  ).toBeLessThan(300);
  expect((await w.as("manager").post(`/v1/contacts/${ids.cy}/suppress`, { reason: "asked" })).status).toBe(200);
});

describe("GET /v1/contacts", () => {
  it("filters by isSuppressed, hasEmail and hasPhone given as query strings", async () => {
    const reachableWithPhone = await w.as("viewer").get("/v1/contacts?hasPhone=true&isSuppressed=false");
    expect(reachableWithPhone.status).toBe(200);
    expect(reachableWithPhone.body.data.map((c: { id: string }) => c.id)).toEqual([ids.bob]);
    expect(reachableWithPhone.body.total).toBe(1);
    const noEmail = await w.as("viewer").get("/v1/contacts?hasEmail=false");
    expect(noEmail.body.data.map((c: { id: string }) => c.id)).toEqual([ids.bob]);
    const bad = await w.as("viewer").get("/v1/contacts?hasEmail=yes");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
  });

  it("answers each contact's consent per channel, as the MCP tool does", async () => {
    const page = await w.as("viewer").get("/v1/contacts?limit=10");
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(3);
    const byId = Object.fromEntries(page.body.data.map((c: { id: string }) => [c.id, c]));
    expect(byId[ids.ann!]).toMatchObject({
      email: "ann@example.com",
      isSuppressed: false,
      consent: { email: { status: "granted", at: expect.any(String) } },
    });
    expect(byId[ids.bob!].consent).toEqual({});
  });
});

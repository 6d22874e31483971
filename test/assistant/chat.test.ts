import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { parseSse, requestWithEnv, type SseEvent, standInAi } from "../agents/helpers";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";

let w: World;
let locationId = "";

async function chat(as: keyof World["users"], body: unknown) {
  const res = await request("POST", "/v1/assistant/chat", {
    token: w.users[as].token,
    tenantId: as === "tenantBAdmin" ? w.tenantB.id : w.tenantA.id,
    body,
  });
  return { ...res, events: res.headers.get("content-type")?.includes("text/event-stream") ? parseSse(res.text) : [] };
}
const data = (e: SseEvent) => JSON.parse(e.data);
const ofType = (events: SseEvent[], type: string) => events.filter((e) => e.type === type).map(data);

beforeAll(async () => {
  w = await createWorld();
  locationId = (await w.as("manager").post("/v1/locations", { name: "Harbour" })).body.id;
  for (const [rating, text] of [
    [5, "Great"],
    [1, "Cold food and rude staff"],
  ] as const) {
    await w
      .as("manager")
      .post("/v1/reviews/ingest", { locationId, siteType: "google", rating, text, externalReviewId: `g-${rating}` });
  }
});

describe("SSE parser", () => {
  it("follows the event-stream rules (CRLF, comments, multi-line data, default type, id carry-over)", () => {
    const events = parseSse(
      "\uFEFF: hello\r\nevent: a\r\ndata: one\r\ndata:two\r\nid: 7\r\n\r\ndata: plain\n\nevent: empty\n\n",
    );
    expect(events).toEqual([
      { type: "a", data: "one\ntwo", id: "7" },
      { type: "message", data: "plain", id: "7" },
    ]);
  });
});

describe("POST /v1/assistant/chat (rules engine)", () => {
  let conversationId = "";

  it("streams tool calls, token deltas and the final cited message, and stores the conversation", async () => {
    const res = await chat("viewer", { message: "Any negative reviews lately?" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const types = res.events.map((e) => e.type);
    expect(types[0]).toBe("conversation");
    expect(types.at(-1)).toBe("message");
    expect(types.indexOf("tool_call")).toBeLessThan(types.indexOf("delta"));
    expect(res.events.map((e) => Number(e.id))).toEqual(res.events.map((_, k) => k + 1));
    const calls = ofType(res.events, "tool_call");
    expect(calls.map((c) => [c.tool, c.input.rating])).toEqual([
      ["review.list", 1],
      ["review.list", 2],
      ["review.summary", undefined],
    ]);
    const deltas = ofType(res.events, "delta").map((d) => d.text);
    expect(deltas.length).toBeGreaterThan(5);
    const message = ofType(res.events, "message")[0];
    expect(deltas.join("")).toBe(message.content);
    expect(message.content).toContain('the latest: "Cold food and rude staff". [1]');
    expect(message).toMatchObject({
      role: "assistant",
      engine: "rules",
      citations: [{ index: 1, tool: "review.list" }, { index: 2 }, { index: 3, tool: "review.summary" }],
    });
    expect(message.citations[0].ids).toHaveLength(1);
    conversationId = ofType(res.events, "conversation")[0].conversationId;
    expect(message.conversationId).toBe(conversationId);
  });

  it("continues a conversation; lists, reads and deletes it (audited)", async () => {
    const res = await chat("viewer", { conversationId, message: "What should we improve?" });
    expect(ofType(res.events, "tool_call").map((c) => c.tool)).toEqual(["recommendation.list"]);
    const list = await w.as("viewer").get("/v1/assistant/conversations?limit=10");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      total: 1,
      data: [{ id: conversationId, title: "Any negative reviews lately?" }],
    });
    const got = await w.as("viewer").get(`/v1/assistant/conversations/${conversationId}`);
    expect(got.body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(got.body.messages[2].content).toBe("What should we improve?");

    // private to its author: another user of the tenant and another tenant see nothing
    expect((await w.as("manager").get(`/v1/assistant/conversations/${conversationId}`)).status).toBe(404);
    expect((await w.as("manager").get("/v1/assistant/conversations")).body.total).toBe(0);
    expect((await chat("manager", { conversationId, message: "hi" })).status).toBe(404);
    expect((await w.as("tenantBAdmin").delete(`/v1/assistant/conversations/${conversationId}`)).status).toBe(404);

    expect((await w.as("viewer").delete(`/v1/assistant/conversations/${conversationId}`)).status).toBe(204);
    expect((await w.as("viewer").get(`/v1/assistant/conversations/${conversationId}`)).status).toBe(404);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.resourceId, conversationId)));
    expect(audit.map((a) => a.action).sort()).toEqual([
      "assistant.conversation_created",
      "assistant.conversation_deleted",
      "assistant.message_added",
    ]);
  });

  it("pages conversations newest first with a keyset cursor", async () => {
    for (const m of ["first", "second", "third"]) await chat("tenantUser", { message: `locations ${m}` });
    const p1 = await w.as("tenantUser").get("/v1/assistant/conversations?limit=2");
    expect(p1.body.data.map((c: { title: string }) => c.title)).toEqual(["locations third", "locations second"]);
    const p2 = await w.as("tenantUser").get(`/v1/assistant/conversations?limit=2&cursor=${p1.body.pageInfo.endCursor}`);
    expect(p2.body.data.map((c: { title: string }) => c.title)).toEqual(["locations first"]);
  });

  it("validates before streaming: empty message 400, over 200,000 tokens 413", async () => {
    const empty = await chat("viewer", { message: "" });
    expect(empty.status).toBe(400);
    expect(empty.body.details.issues[0].path).toBe("message");
    const huge = await chat("viewer", { message: "a ".repeat(200_001) });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("POST /v1/assistant/chat (llm engine, stand-in binding)", () => {
  it("emits the model's tool calls and streams its answer", async () => {
    const sse = (pieces: string[]) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          const enc = new TextEncoder();
          for (const p of pieces) c.enqueue(enc.encode(`data: ${JSON.stringify({ response: p })}\n\n`));
          c.enqueue(enc.encode("data: [DONE]\n\n"));
          c.close();
        },
      });
    const ai = standInAi([
      { tool_calls: [{ name: "review.summary", arguments: {} }] },
      { response: "" },
      () => sse(["You have ", "2 reviews ", "[1]."]),
    ]);
    const res = await requestWithEnv({ AI: ai }, "POST", "/v1/assistant/chat", {
      token: w.users.viewer.token,
      tenantId: w.tenantA.id,
      body: { message: "How many reviews?" },
    });
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(ofType(events, "tool_call")).toEqual([{ index: 1, tool: "review.summary", input: {} }]);
    expect(ofType(events, "delta").map((d) => d.text)).toEqual(["You have ", "2 reviews ", "[1]."]);
    expect(ofType(events, "message")[0]).toMatchObject({
      content: "You have 2 reviews [1].",
      engine: "llm",
      citations: [{ index: 1, tool: "review.summary" }],
    });
    expect(ai.calls[2]!.input.stream).toBe(true);
  });

  it("a failing model ends the stream with an error event and stores nothing", async () => {
    const ai = { run: async () => Promise.reject(new Error("quota")) };
    const res = await requestWithEnv({ AI: ai }, "POST", "/v1/assistant/chat", {
      token: w.users.manager.token,
      tenantId: w.tenantA.id,
      body: { message: "hello" },
    });
    const events = parseSse(res.text);
    expect(events.map((e) => e.type)).toEqual(["conversation", "error"]);
    expect(data(events[1]!)).toEqual({ error: "The assistant failed", code: "INTERNAL" });
    expect((await w.as("manager").get("/v1/assistant/conversations")).body.total).toBe(0);
  });
});

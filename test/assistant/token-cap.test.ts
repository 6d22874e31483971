import { beforeAll, describe, expect, it } from "vitest";
import { parseSse, requestWithEnv, standInAi } from "../agents/helpers";
import { createWorld, type World } from "../helpers/seed";

let w: World;

beforeAll(async () => {
  w = await createWorld();
});

const chatWith = (ai: unknown, body: unknown) =>
  requestWithEnv({ AI: ai }, "POST", "/v1/assistant/chat", {
    token: w.users.viewer.token,
    tenantId: w.tenantA.id,
    body,
  });

describe("assistant llm engine: the token cap holds on every turn, not only for the new message", () => {
  it("a conversation whose history and new message together pass 200,000 tokens is 413, never sent to the model", async () => {
    // each message alone is within the cap (prepareChat lets it through); together with the history they are not
    const long = "a ".repeat(120_000);
    const first = await chatWith(standInAi([{ response: "" }, { response: "Noted." }]), { message: long });
    expect(first.status).toBe(200);
    const conversationId = JSON.parse(parseSse(first.text).find((e) => e.type === "conversation")!.data).conversationId;

    const ai = standInAi([{ response: "" }, { response: "Should not be asked." }]);
    const second = await chatWith(ai, { conversationId, message: long });
    // refused before the stream opens, as the message alone over the cap is (docs/ai.md)
    expect(second.status).toBe(413);
    expect(second.body).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      error: "The model input is over the limit of 200,000 tokens",
      details: { limit: 200_000 },
    });
    expect(ai.calls).toHaveLength(0);
    const stored = await w.as("viewer").get(`/v1/assistant/conversations/${conversationId}`);
    expect(stored.body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
  });
});

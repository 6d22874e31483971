import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { parseSse, requestWithEnv, standInAi } from "../agents/helpers";

let w: World;

beforeAll(async () => {
  w = await createWorld();
});

const chatWith = (ai: unknown, body: unknown) =>
  requestWithEnv({ AI: ai }, "POST", "/v1/assistant/chat", { token: w.users.viewer.token, tenantId: w.tenantA.id, body });

describe("assistant llm engine: the token cap holds on every turn, not only for the new message", () => {
  it("a conversation whose history and new message together pass 200,000 tokens is never sent to the model", async () => {
    // each message alone is within the cap (prepareChat lets it through); together with the history they are not
    const long = "a ".repeat(120_000);
    const first = await chatWith(standInAi([{ response: "" }, { response: "Noted." }]), { message: long });
    expect(first.status).toBe(200);
    const conversationId = JSON.parse(parseSse(first.text).find((e) => e.type === "conversation")!.data).conversationId;

    const ai = standInAi([{ response: "" }, { response: "Should not be asked." }]);
    const second = await chatWith(ai, { conversationId, message: long });
    const events = parseSse(second.text);
    expect(events.map((e) => e.type)).toEqual(["conversation", "error"]);
    expect(JSON.parse(events[1]!.data)).toEqual({ error: "The model input is over the limit of 200,000 tokens", code: "PAYLOAD_TOO_LARGE" });
    expect(ai.calls).toHaveLength(0);
  });
});

import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../../src/db/schema";
import { createWorld, db, type World } from "../helpers/seed";
import { requestWithEnv, standInAi } from "./helpers";

let w: World;
let templateId = "";

const runWith = (ai: unknown, name: string, body: unknown, extra: Record<string, unknown> = {}) =>
  requestWithEnv({ AI: ai, ...extra }, "POST", `/v1/agents/${name}/run`, {
    token: w.users.viewer.token,
    tenantId: w.tenantA.id,
    body,
  });

const goodCritique = () => ({
  target: { kind: "template", id: templateId },
  findings: [
    {
      rule: "unsubscribe_missing",
      severity: "high",
      message: "No unsubscribe link.",
      fix: "Add {{unsubscribeLink}}.",
      evidence: [{ source: "template.get", id: templateId, label: "body", value: "no link" }],
    },
  ],
  counts: { info: 0, low: 0, medium: 0, high: 1, critical: 0 },
  passed: false,
});

beforeAll(async () => {
  w = await createWorld();
  templateId = (
    await w
      .as("manager")
      .post("/v1/templates", { name: "Ask", channel: "email", subject: "Hi", bodyText: "Review us: {{reviewLink}}" })
  ).body.id;
});

describe("llm engine (stand-in Workers AI binding)", () => {
  it("runs the tool-calling loop, retries once on a malformed answer, then returns the validated output", async () => {
    const ai = standInAi([
      { response: null, tool_calls: [{ name: "template.get", arguments: { templateId } }] },
      { response: "I have what I need." },
      { response: "{not json" },
      { response: goodCritique() },
    ]);
    const res = await runWith(ai, "compliance-critic", { templateId }, { AI_MODEL: "@cf/test/model" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      agent: "agent.compliance-critic",
      engine: "llm",
      model: "@cf/test/model",
      output: goodCritique(),
    });
    expect(res.body.toolCalls).toEqual([
      expect.objectContaining({ tool: "template.get", input: { templateId }, ok: true }),
    ]);
    expect(ai.calls).toHaveLength(4);
    expect(ai.calls[0]!.input.tools).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "template.get", parameters: expect.objectContaining({ type: "object" }) }),
      ]),
    );
    const toolMessage = (ai.calls[1]!.input.messages as { role: string; content: string }[]).find(
      (m) => m.role === "tool",
    )!;
    expect(JSON.parse(toolMessage.content)).toMatchObject({ id: templateId, bodyText: "Review us: {{reviewLink}}" });
    expect(ai.calls[2]!.input.response_format).toMatchObject({ type: "json_schema", json_schema: { type: "object" } });
    const retry = (ai.calls[3]!.input.messages as { role: string; content: string }[]).at(-1)!;
    expect(retry.content).toMatch(/That answer is invalid/);
  });

  it("a second invalid answer is 502 UPSTREAM_ERROR, audited as model_error", async () => {
    const ai = standInAi([{ response: "" }, { response: { findings: "nope" } }, { response: "still not it" }]);
    const res = await runWith(ai, "compliance-critic", { templateId });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: "UPSTREAM_ERROR" });
    const rows = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, w.tenantA.id), eq(auditEvents.action, "agent.run")));
    expect(rows.map((r) => (r.metadata as { outcome: string }).outcome)).toContain("model_error");
  });

  it("evidence citing an id no tool returned is invented: retried", async () => {
    const invented = {
      ...goodCritique(),
      findings: [
        {
          ...goodCritique().findings[0],
          evidence: [{ source: "template.get", id: "made-up-id", label: "x", value: 1 }],
        },
      ],
    };
    const ai = standInAi([
      {
        response: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "template.get", arguments: JSON.stringify({ templateId }) } },
        ],
      },
      { response: "" },
      { response: invented },
      { response: goodCritique() },
    ]);
    const res = await runWith(ai, "compliance-critic", { templateId });
    expect(res.status).toBe(200);
    const retry = (ai.calls[3]!.input.messages as { content: string }[]).at(-1)!;
    expect(retry.content).toContain("made-up-id is not an id any tool returned");
  });

  it("a tool the agent does not have is refused to the model, not run", async () => {
    const ai = standInAi([
      { tool_calls: [{ name: "contact.list", arguments: {} }] },
      { response: "" },
      { response: goodCritique() },
    ]);
    const res = await runWith(ai, "compliance-critic", { templateId });
    expect(res.status).toBe(200);
    expect(res.body.toolCalls).toEqual([]);
    const tool = (ai.calls[1]!.input.messages as { role: string; content: string }[]).find((m) => m.role === "tool")!;
    expect(tool.content).toMatch(/Unknown tool contact.list/);
  });

  it("a model that does not answer in time is 504 TIMEOUT", async () => {
    const ai = { run: () => new Promise(() => {}) };
    const res = await runWith(ai, "compliance-critic", { templateId }, { AGENT_TIMEOUT_MS: "50" });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: "TIMEOUT", details: { timeoutMs: 50 } });
  });

  it("tool calls stay in the caller's tenant: another tenant's template is a tool error the model sees", async () => {
    const bTemplate = (await w.as("tenantBAdmin").post("/v1/templates", { name: "B", channel: "sms", bodyText: "hi" }))
      .body.id;
    const ai = standInAi([
      { tool_calls: [{ name: "template.get", arguments: { templateId: bTemplate } }] },
      { response: "" },
      { response: goodCritique() },
    ]);
    const res = await runWith(ai, "compliance-critic", { templateId });
    const tool = (ai.calls[1]!.input.messages as { role: string; content: string }[]).find((m) => m.role === "tool")!;
    expect(JSON.parse(tool.content)).toEqual({ error: "Template not found", code: "NOT_FOUND" });
    expect(res.body.toolCalls).toEqual([expect.objectContaining({ tool: "template.get", ok: false })]);
  });
});

describe("input token cap", () => {
  it("refuses an input over 200,000 tokens with 413 PAYLOAD_TOO_LARGE, before running anything", async () => {
    const question = "a ".repeat(200_001);
    const res = await w.as("viewer").post("/v1/agents/operator-copilot/run", { question });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      details: { limit: 200_000, tokenizer: "cl100k_base" },
    });
    const ok = await w.as("viewer").post("/v1/agents/operator-copilot/run", { question: "a ".repeat(1_000) });
    expect(ok.status).toBe(200);
    expect(ok.body.inputTokens).toBeGreaterThan(1_000);
  });
});

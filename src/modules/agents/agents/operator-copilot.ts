import { z } from "@hono/zod-openapi";
import { defineAgent } from "../define";
import { answerByIntents, COPILOT_TOOLS } from "../intents";
import { Evidences, RangeInput, rangeOf } from "../types";

export const CitationSchema = z
  .object({
    index: z.number().int(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
    ids: z.array(z.string()),
  })
  .openapi("AgentCitation");

const input = z
  .object({ question: z.string().trim().min(1).max(1_000_000), ...RangeInput })
  .openapi("OperatorCopilotInput");

const output = z
  .object({
    answer: z.string().describe("the summary; [n] marks cite citations[n-1]"),
    intents: z
      .array(z.string())
      .describe("rules engine: the matched intents (docs/ai.md); llm engine: the skills it chose"),
    citations: z.array(CitationSchema),
    evidence: Evidences,
  })
  .openapi("OperatorCopilotOutput");

export const COPILOT_PROMPT =
  "You are the operator copilot of a reputation-management product. Answer the operator's question by calling the read " +
  "tools (reviews, inbox, approvals, campaigns, locations and scores, competitors, recommendations, surveys, contacts), then " +
  "summarise briefly. Mark each statement with [n], where n is the number of the tool call it comes from (1 = first call).";

export const operatorCopilot = defineAgent({
  name: "agent.operator-copilot",
  title: "Operator copilot",
  description:
    "Answers an operator's question about the business by calling the read skills, and summarises with numbered " +
    "citations of what it read (skill, input, record ids).",
  input,
  output,
  systemPrompt: COPILOT_PROMPT,
  tools: COPILOT_TOOLS,
  range: (i) => rangeOf(i, 30),
  async rules(run, i) {
    const { intents, answer, citations } = await answerByIntents(run, i.question);
    return {
      answer,
      intents,
      citations,
      evidence: citations.flatMap((c) =>
        c.ids.slice(0, 3).map((id) => ({ source: c.tool, id, label: `cited in [${c.index}]`, value: null })),
      ),
    };
  },
});

import { z } from "@hono/zod-openapi";
import { exposedAgents } from "./registry";

export const AgentNameParam = z.object({
  name: z.string().min(1).max(64).openapi({
    description: "the agent, e.g. agent.compliance-critic or compliance-critic",
    example: "agent.compliance-critic",
  }),
});

export const AgentRunBody = z.record(z.string(), z.unknown()).openapi("AgentRunRequest", {
  description:
    "The agent's input; its schema is the agent's `<Name>Input` component (docs/ai.md). Over 200,000 tokens is 413 PAYLOAD_TOO_LARGE.",
});

export const AgentListSchema = z
  .object({
    data: z.array(
      z.object({ name: z.string(), title: z.string(), description: z.string(), tools: z.array(z.string()) }),
    ),
  })
  .openapi("AgentList");

const JsonSchema = z.record(z.string(), z.unknown());

export const AgentSchemasSchema = z
  .record(z.string(), z.object({ input: JsonSchema, output: JsonSchema }))
  .openapi("AgentSchemas", { description: "per agent name: the JSON Schema of its input and of its output" });

export const agentJsonSchemas = () =>
  Object.fromEntries(
    exposedAgents().map((a) => [
      a.name,
      {
        input: z.toJSONSchema(a.input, { io: "input", unrepresentable: "any" }),
        output: z.toJSONSchema(a.output, { io: "output", unrepresentable: "any" }),
      },
    ]),
  );

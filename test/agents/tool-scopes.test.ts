import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { controlDb, tenantDb } from "../../src/db/shards";
import { SYSTEM_META } from "../../src/lib/context";
import { AGENTS } from "../../src/modules/agents/agents";
import { findAgent } from "../../src/modules/agents/registry";
import { callTool, ToolSkipped, toolScopes } from "../../src/modules/agents/tools";
import { READ_SCOPES } from "../../src/modules/oauth/scopes";
import { WIRING } from "../../src/wiring";
import { createWorld, type World } from "../helpers/seed";
import { mintTestKey, statelessCall } from "../mcp/helpers";
import { authorizeWithConsent, MemoryOAuthClient } from "../oauth/helpers";

let w: World;
let contactEmail = "";
let campaignId = "";

beforeAll(async () => {
  w = await createWorld();
  contactEmail = `scope-leak-${Date.now()}@example.com`;
  expect((await w.as("manager").post("/v1/contacts", { email: contactEmail })).status).toBe(201);
  campaignId = (await w.as("manager").post("/v1/campaigns", { name: "scoped", type: "one_time", channels: ["sms"] }))
    .body.id;
});

/** The agents the MCP server offers (the composition root's catalogue), and every agent with its tools. */
const exposedAgents = WIRING.skills.filter((s) => s.name.startsWith("agent.")).map((s) => findAgent(s.name)!);
const everyAgentTool = AGENTS.flatMap((a) => a.tools.map((tool) => [a.name, tool] as const));
const covers = (grant: readonly string[], tool: string) => toolScopes(tool)!.some((s) => grant.includes(s));

/** One valid input per exposed agent; a new agent fails the "covers every agent" check until it has one. */
const SAMPLE_INPUTS: Record<string, () => Record<string, unknown>> = {
  "agent.campaign-strategist": () => ({}),
  "agent.compliance-critic": () => ({
    draft: { channel: "sms", bodyText: "Hi {{first_name}}, how did we do? Reply STOP to opt out." },
  }),
  "agent.experiment-designer": () => ({ campaignId, baselineRate: 0.1, minimumDetectableEffect: 0.02 }),
  "agent.operator-copilot": () => ({ question: "reviews, inbox, approvals, campaigns, contacts?" }),
  "agent.optimization": () => ({}),
  "agent.outcome-analyst": () => ({ campaignId }),
  "agent.reputation-insight": () => ({}),
  "agent.template-generator": () => ({ channels: ["sms"] }),
};

const agentCtx = async (scopes: readonly string[]) => ({
  db: await tenantDb(env, w.tenantA.id),
  control: controlDb(env),
  env,
  tenantId: w.tenantA.id,
  meta: SYSTEM_META,
  defer: () => {},
  canWrite: false,
  scopes,
  actor: { type: "user" as const, userId: w.users.viewer.id, via: "tenant" as const },
});

describe("every agent tool x a grant without its scope", () => {
  it("the catalogue has agents, every exposed one is in the agent list, and every tool declares read scopes", () => {
    expect(exposedAgents.length).toBeGreaterThanOrEqual(8);
    for (const a of exposedAgents) expect(AGENTS).toContain(a);
    for (const [, tool] of everyAgentTool) {
      expect(toolScopes(tool), tool).not.toBeNull();
      expect(toolScopes(tool)!.length, tool).toBeGreaterThan(0);
      for (const s of toolScopes(tool)!) expect(s.startsWith("read:"), `${tool}: ${s}`).toBe(true);
    }
  });

  it.each(everyAgentTool)(
    "%s: %s is skipped for agent:* alone and for every read scope but its own",
    async (_agent, tool) => {
      const allButIts = ["agent:*", ...READ_SCOPES.filter((s) => !toolScopes(tool)!.includes(s))];
      for (const grant of [["agent:*"], allButIts]) {
        const err = await callTool(await agentCtx(grant), tool, {}).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, `${tool} with ${grant.join(" ")}`).toBeInstanceOf(ToolSkipped);
        expect((err as ToolSkipped).missing).toEqual(toolScopes(tool));
        expect((err as ToolSkipped).message).toContain(toolScopes(tool)![0]);
      }
    },
  );
});

describe("every exposed agent over MCP x restricted grants", () => {
  it("has a sample input for every agent the catalogue exposes", () => {
    expect(Object.keys(SAMPLE_INPUTS).sort()).toEqual(exposedAgents.map((a) => a.name).sort());
  });

  const GRANTS: string[][] = [
    ["agent:*"],
    ["agent:*", "read:reviews"],
    ["agent:*", "read:campaigns"],
    ["agent:*", ...READ_SCOPES.filter((s) => s !== "read:contacts" && s !== "read:reviews")],
    ["agent:*", ...READ_SCOPES],
  ];

  it.each(GRANTS.map((g) => [g.join(" "), g] as const))(
    "read-only API key %s: each agent reads only what the key covers and names what it skipped",
    async (_label, grant) => {
      const { token } = mintTestKey(w.tenantA.id, grant);
      for (const agent of exposedAgents) {
        const { status, result } = await statelessCall(token, agent.name, SAMPLE_INPUTS[agent.name]!());
        expect(status, agent.name).toBe(200);
        const uncovered = agent.tools.filter((t) => !covers(grant, t));
        if (result.isError) {
          // a rules engine that cannot do without a skipped tool: refused, naming the scope it lacked
          const body = JSON.parse(result.content[0].text);
          expect(body.code, `${agent.name}: ${body.error}`).toBe("FORBIDDEN");
          expect(uncovered, agent.name).toContain(body.details.tool);
          expect(body.details.missingScopes).toEqual(toolScopes(body.details.tool));
          continue;
        }
        const out = result.structuredContent;
        expect(out.skippedTools, agent.name).toEqual(
          uncovered.map((tool) => ({ tool, missingScopes: toolScopes(tool) })),
        );
        for (const call of out.toolCalls as { tool: string; ok: boolean; missingScopes?: string[] }[]) {
          if (!covers(grant, call.tool))
            expect(call, agent.name).toMatchObject({ ok: false, missingScopes: toolScopes(call.tool) });
        }
      }
    },
  );

  it("the full read grant skips nothing", async () => {
    const { token } = mintTestKey(w.tenantA.id, ["agent:*", ...READ_SCOPES]);
    for (const agent of exposedAgents) {
      const { result } = await statelessCall(token, agent.name, SAMPLE_INPUTS[agent.name]!());
      expect(result.isError, `${agent.name}: ${result.content?.[0]?.text}`).toBeFalsy();
      expect(result.structuredContent.skippedTools).toEqual([]);
    }
  });
});

describe("agent tool calls carry the caller's scopes", () => {
  it("an OAuth grant of agent:* alone: contact.list is refused, and the copilot does not read contacts either", async () => {
    const token = await authorizeWithConsent(new MemoryOAuthClient("agent-only"), "agent:*", {
      email: w.users.tenantUser.email,
      tenantId: w.tenantA.id,
    });
    const direct = await statelessCall(token, "contact.list", {});
    expect(direct.status).toBe(403);

    const { result } = await statelessCall(token, "agent.operator-copilot", {
      question: "how many contacts do we have?",
    });
    const out = result.structuredContent;
    expect(out.toolCalls).toEqual([expect.objectContaining({ tool: "contact.list", ok: false })]);
    expect(out.output.answer).toContain("read:contacts");
    expect(out.output.answer).not.toMatch(/\d+ contacts? match/);
    expect(out.skippedTools).toEqual(
      expect.arrayContaining([{ tool: "contact.list", missingScopes: ["read:contacts"] }]),
    );
  });

  it("an API key of agent:* and read:reviews reads reviews through the copilot but not contacts", async () => {
    const { token } = mintTestKey(w.tenantA.id, ["agent:*", "read:reviews"]);
    const { result } = await statelessCall(token, "agent.operator-copilot", {
      question: "what about contacts and reviews?",
    });
    const calls = result.structuredContent.toolCalls as { tool: string; ok: boolean }[];
    expect(calls.find((c) => c.tool === "contact.list")).toMatchObject({ ok: false });
    expect(calls.find((c) => c.tool === "review.summary")).toMatchObject({ ok: true });
  });
});

import { AGENTS } from "./agents";
import type { AgentDefinition } from "./types";

const agents = new Map<string, AgentDefinition>();
for (const agent of AGENTS) {
  if (agents.has(agent.name)) throw new Error(`agent ${agent.name} listed twice`);
  agents.set(agent.name, agent);
}

/** `agent.campaign-strategist` or its short form `campaign-strategist`. */
export const findAgent = (name: string): AgentDefinition | undefined => agents.get(name) ?? agents.get(`agent.${name}`);

export const exposedAgents = () =>
  [...agents.values()].filter((a) => a.exposed !== false).sort((a, b) => a.name.localeCompare(b.name));

import type { z } from "@hono/zod-openapi";
import type { AgentDefinition } from "./types";

type ObjectSchema = z.ZodObject<z.ZodRawShape>;
const agents = new Map<string, AgentDefinition>();

export function defineAgent<I extends ObjectSchema, O extends ObjectSchema>(def: AgentDefinition<I, O>): AgentDefinition<I, O> {
  if (agents.has(def.name)) throw new Error(`agent ${def.name} registered twice`);
  agents.set(def.name, def as unknown as AgentDefinition);
  return def;
}

/** `agent.campaign-strategist` or its short form `campaign-strategist`. */
export const findAgent = (name: string): AgentDefinition | undefined => agents.get(name) ?? agents.get(`agent.${name}`);

export const exposedAgents = () => [...agents.values()].filter((a) => a.exposed !== false).sort((a, b) => a.name.localeCompare(b.name));

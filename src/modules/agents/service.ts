import type { ServiceContext } from "../../lib/context";
import { exposedAgents } from "./registry";
import { runAgentByName } from "./runtime";

export const runAgentFor = (ctx: ServiceContext, canWrite: boolean, name: string, input: unknown) => runAgentByName({ ...ctx, canWrite }, name, input);

/** GET /v1/agents: names, titles and descriptions. */
export const listAgents = () => ({ data: exposedAgents().map((a) => ({ name: a.name, title: a.title, description: a.description, tools: a.tools })) });
